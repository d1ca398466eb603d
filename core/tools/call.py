"""One tool call with all of its options: pre_hook, result cache, hook chain, post_hook.

Order, outermost first (docs/runtime.md, "Tools"):

1. ``pre_hook`` — may read or change ``fc.arguments``; raising blocks the call.
2. the result cache (``cache_results``): a hit skips steps 3 and 4.
3. the agent's ``tool_hooks`` (first is outermost), then the tool's own ``tool_hooks``
   — Agno *replaces* a tool's hooks with the agent's; here both run, so a tool's
   safety hook is never dropped by an agent-wide one.
4. the tool itself.
5. ``post_hook`` — sees ``fc.result`` and may assign a new one.

Pre and post hooks get the tool's injected values by parameter name (``agent``,
``team``, ``run_context``, ``session_state``, ``agent_state``) plus ``fc`` (the
:class:`FunctionCall`, Agno's name), ``function_name`` and ``arguments``; a sync hook
runs on a worker thread, an async one is awaited.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.tools.cache import MISS, ResultCache
from core.tools.function import Function, FunctionCall
from core.tools.hooks import call_with, run_tool_chain
from core.tools.workers import run_in_worker


async def call_function(
    function: Function,
    arguments: dict[str, Any],
    hooks: Sequence[Callable[..., Any]],
    injected: Mapping[str, Any],
    *,
    call_id: str | None = None,
    inline: bool = False,
) -> Any:
    """Run ``function`` with its options and the agent's ``hooks``; returns its result.

    ``inline``: a sync tool runs on the event loop (the caller asked ``runs_inline``).
    """
    fc = FunctionCall(function, dict(arguments), call_id)
    if function.pre_hook is not None:
        await _run_hook(function.pre_hook, fc, injected)
    chain = [*hooks, *function.tool_hooks]
    cache = function.cache
    key = _cache_key(function, fc.arguments, chain, injected) if cache is not None else ""
    cached = cache.get(key) if cache is not None else MISS
    if cached is not MISS:
        fc.result = cached
    else:
        fc.result = await run_tool_chain(function, fc.arguments, chain, injected, inline=inline)
        if cache is not None:
            cache.put(key, fc.result)
    if function.post_hook is not None:
        await _run_hook(function.post_hook, fc, injected)
    return fc.result


async def _run_hook(
    hook: Callable[..., Any], fc: FunctionCall, injected: Mapping[str, Any]
) -> None:
    values = {
        **injected,
        "fc": fc,
        "function_name": fc.function.name,
        "arguments": fc.arguments,
        "result": fc.result,
    }
    if inspect.iscoroutinefunction(hook):
        await call_with(hook, values)
        return
    outcome = await run_in_worker(call_with, hook, values)
    if inspect.isawaitable(outcome):
        await outcome


def _cache_key(
    function: Function,
    arguments: Mapping[str, object],
    chain: Sequence[Callable[..., Any]],
    injected: Mapping[str, Any],
) -> str:
    """(tool, arguments); also (session, user) when the tool or a hook can see the run.

    A tool with injected parameters, or wrapped by hooks (which get them), may answer
    differently per session or user; sharing its cache would show one user's data to
    another. A tool that sees only its arguments shares one cache across sessions.
    """
    scope: tuple[object, ...] = ()
    context = injected.get("run_context")
    if (function.injected or chain) and context is not None:
        scope = (context.session_id, context.user_id)
    return ResultCache.key(function.name, dict(arguments), scope)
