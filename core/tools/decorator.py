"""``@tool``: turn a function into a Function, optionally naming or describing it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from core.tools.function import Function


@overload
def tool(fn: Callable[..., Any], /) -> Function: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    **_: Any,
) -> Callable[[Callable[..., Any]], Function]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | None = None,
    **_: Any,  # Agno's display options (show_result, ...) are accepted and ignored
) -> Function | Callable[[Callable[..., Any]], Function]:
    """Mark a function as a tool; the result is still callable like the function.

    ``timeout``: seconds one call may take (default: the agent's ``tool_timeout``);
    a call past it is stopped, undone and reported to the model as an error.
    """
    if fn is not None:
        return Function(fn)

    def wrap(inner: Callable[..., Any]) -> Function:
        return Function(inner, name=name, description=description, timeout=timeout)

    return wrap
