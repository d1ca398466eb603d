"""Callable dependencies, resolved once per run (Agno's ``dependencies={"now": get_time}``).

A dependency whose value is callable is called at the start of each run and its result
is what the prompt, ``{key}`` templating and ``run_context.dependencies`` see. As in
Agno it may take ``agent`` (or ``team``) and ``run_context`` by parameter name; here
also the other injected names (``session_state``, ``agent_state``). A sync callable
runs on a worker thread, an async one is awaited. Unlike Agno, which logs a warning and
leaves the callable in place, a dependency that raises fails the run with
:class:`DependencyError` before the model is called: its repr would otherwise reach
the prompt.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from types import MappingProxyType

from core.exceptions import DependencyError as DependencyError
from core.tools.hooks import call_with
from core.tools.workers import run_in_worker


async def resolve_dependencies(
    dependencies: Mapping[str, object], available: Mapping[str, object]
) -> Mapping[str, object]:
    """A read-only mapping with every callable value replaced by what it returns."""
    resolved: dict[str, object] = {}
    for key, value in dependencies.items():
        if not callable(value):
            resolved[key] = value
            continue
        try:
            if inspect.iscoroutinefunction(value):
                result = await call_with(value, available)
            else:
                result = await run_in_worker(call_with, value, available)
                if inspect.isawaitable(result):
                    result = await result
        except Exception as exc:
            raise DependencyError(key, exc) from exc
        resolved[key] = result
    return MappingProxyType(resolved)
