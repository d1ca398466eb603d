"""``@tool``: turn a function into a Function with Agno's tool options.

Every option Agno's ``@tool`` documents is either honoured or refused here, never
accepted and ignored (the table is in docs/runtime.md, "Tools"):

- honoured: ``name``, ``description``, ``strict``, ``instructions``,
  ``add_instructions``, ``pre_hook``, ``post_hook``, ``tool_hooks``,
  ``cache_results``, ``cache_ttl``, ``cache_dir``, and Statebot's own ``timeout``,
  ``internal`` and ``inline`` (keyword options Agno does not have, so Agno code never
  passes them);
- flags the run loop acts on: ``requires_confirmation``, ``stop_after_tool_call``,
  ``stop_after_successful_tool_call``, ``show_result``;
- refused (``ValueError`` naming the option): ``requires_user_input``,
  ``user_input_fields``, ``external_execution``, ``external_execution_silent``, and
  any name Agno does not have.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from core.tools.function import Function

#: options Function takes as they are
_HONOURED = frozenset(
    {
        "name",
        "description",
        "timeout",
        "strict",
        "instructions",
        "add_instructions",
        "show_result",
        "stop_after_tool_call",
        "stop_after_successful_tool_call",
        "requires_confirmation",
        "pre_hook",
        "post_hook",
        "tool_hooks",
        "cache_results",
        "cache_ttl",
        "cache_dir",
        "internal",
        "inline",
    }
)

#: Agno options for ways of pausing a run that Statebot does not offer
_REFUSED = {
    "requires_user_input": "pausing a run for user input",
    "user_input_fields": "pausing a run for user input",
    "external_execution": "tools executed outside the agent",
    "external_execution_silent": "tools executed outside the agent",
}


def check_options(options: dict[str, Any]) -> dict[str, Any]:
    """The Function keyword arguments for ``@tool`` options, or a ValueError naming the bad one."""
    unknown = sorted(set(options) - _HONOURED - set(_REFUSED))
    if unknown:
        raise ValueError(
            f"invalid tool option(s) {', '.join(unknown)}; "
            f"valid options are {', '.join(sorted(_HONOURED))}"
        )
    for option, what in _REFUSED.items():
        if options.get(option):
            raise ValueError(
                f"@tool({option}=...) is not supported: Statebot has no {what}; "
                "use requires_confirmation=True to have a person approve the call"
            )
    accepted = {k: v for k, v in options.items() if k in _HONOURED and v is not None}
    stops = accepted.get("stop_after_tool_call") or accepted.get("stop_after_successful_tool_call")
    if stops and "show_result" not in accepted:
        accepted["show_result"] = True  # Agno: a tool that ends the run shows its result
    return accepted


@overload
def tool(fn: Callable[..., Any], /) -> Function: ...


@overload
def tool(**options: Any) -> Callable[[Callable[..., Any]], Function]: ...


def tool(
    fn: Callable[..., Any] | None = None, /, **options: Any
) -> Function | Callable[[Callable[..., Any]], Function]:
    """Mark a function as a tool; the result is still callable like the function.

    ``timeout`` (not an Agno option): seconds one call may take (default: the agent's
    ``tool_timeout``); a call past it is stopped, undone and reported to the model.
    ``internal=True`` (not an Agno option): the tool is run by code only (a scheduled
    run, ``arun_tool``); the model is not offered it, and a model call of it is an
    unknown tool.
    ``inline=True`` (not an Agno option): a sync tool that is cheap and never blocks
    runs on the event loop against the live state, with no worker thread; it cannot be
    interrupted, so its timeout is only noticed when it returns (docs/runtime.md).
    ``inline=False`` keeps it on a worker thread always; left out, the tool is measured
    and runs on the loop once its calls have shown it cheap (:mod:`core.tools.inline`).
    The other options are Agno's; see the module docstring.
    """
    accepted = check_options(options)
    if fn is not None:
        return Function(fn, **accepted)

    def wrap(inner: Callable[..., Any]) -> Function:
        if isinstance(inner, Function):  # @tool(...) over @tool: the new options win
            return Function(inner.entrypoint, **accepted)
        return Function(inner, **accepted)

    return wrap
