"""Checks of Agno's context arguments that this runtime honours in its own way.

- ``system_message_role``: ``system`` or ``developer`` only; another role would store
  the system message (state and all) as a user's or assistant's words.
- ``store_history_messages``: False (Agno's default) is what every run does: a run
  stores only its own messages. True is refused.
- ``max_tool_calls_from_history``: holds for every value (0 or more), since history
  here is each earlier run's question and answer, never its tool calls.
"""

from __future__ import annotations

from core.run.run_records import SYSTEM_ROLES


def check_context_args(
    *,
    system_message_role: str,
    store_history_messages: bool,
    max_tool_calls_from_history: int | None,
) -> None:
    """Raise ValueError, with the reason, for a value this runtime cannot honour."""
    if max_tool_calls_from_history is not None and max_tool_calls_from_history < 0:
        raise ValueError("max_tool_calls_from_history must be 0 or more (None: no limit)")
    if store_history_messages:
        raise ValueError(
            "store_history_messages=True is not supported: a run stores only its own "
            "messages (the earlier runs it was shown are stored once already)"
        )
    if system_message_role not in SYSTEM_ROLES:
        raise ValueError(
            f"system_message_role must be one of {', '.join(SYSTEM_ROLES)}, "
            f"not {system_message_role!r}"
        )
