"""Approvals in chat: a paused run's waiting tool calls, offered as Approve / Reject.

A run that stops for ``requires_confirmation`` becomes a :class:`Approval` on the
Reply; the adapter renders it as buttons (Slack Block Kit, Discord components)
carrying :meth:`Approval.encode`. The click comes back as a :class:`Decision`, which
:meth:`bots.chat.service.ChatService.handle_decision` applies with ``acontinue_run``, in
whatever process receives it: everything needed travels in the button, and the run
itself is stored with its session.

Only the person who asked, or an admin, may decide. A second click finds the run no
longer waiting and is told "already handled"; a run that left the history (or an
agent that no longer exists) is "expired". Neither changes anything.

The same buttons (labelled Confirm / Cancel) confirm an admin's ``/state restore`` or
``/state erase``: such an Approval has no run and carries ``action`` instead (what to
do, e.g. ``("restore", "5", "7")``), which ``bots.admin.confirm`` applies; one
mechanism for every "are you sure?" in chat.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bots.keys import user_key

#: the longest argument text shown on a button prompt (the full call is in the run)
ARGS_CHARS = 300

ASK = "Approve {calls}?"
NOT_YOURS = "Only the person who asked (or an admin) can decide this one; nothing was done."
ALREADY = "This request was already handled; nothing more was done."
EXPIRED = "This request has expired or is unknown; nothing was done. Please ask again."
DECIDED = {True: "Approved by {who}.", False: "Rejected by {who}."}


@dataclass(frozen=True, slots=True)
class Approval:
    """A paused run waiting for a person: which agent, session and run, asked by whom."""

    agent_id: str
    session_id: str
    run_id: str
    requester: str  # the full user key of the person who asked
    call_ids: tuple[str, ...]
    calls: tuple[tuple[str, str], ...] = ()  # (tool name, arguments as JSON) for the prompt
    #: an admin action to confirm instead of a paused run (``bots.admin.confirm``)
    action: tuple[str, ...] = ()

    @classmethod
    def of(cls, agent_id: str, output: Any, requester: str) -> Approval:
        """The approval a paused RunOutput asks for."""
        waiting = list(output.tools_requiring_confirmation)
        return cls(
            agent_id=agent_id,
            session_id=str(output.session_id),
            run_id=str(output.run_id),
            requester=requester,
            call_ids=tuple(t.tool_call_id for t in waiting),
            calls=tuple(
                (t.tool_name, json.dumps(t.tool_args, ensure_ascii=False, sort_keys=True))
                for t in waiting
            ),
        )

    @property
    def prompt(self) -> str:
        """``Approve clear_board({"keep": 1})?`` — names each tool and its arguments."""
        shown = ", ".join(f"{name}({_short(args)})" for name, args in self.calls)
        return ASK.format(calls=shown or "this action")

    @property
    def labels(self) -> tuple[str, str]:
        """The yes and no button labels: Confirm / Cancel for an admin action."""
        return ("Confirm", "Cancel") if self.action else ("Approve", "Reject")

    def encode(self) -> str:
        """The compact text a button carries (Slack allows 2,000 characters)."""
        fields: list[Any] = [
            self.agent_id,
            self.session_id,
            self.run_id,
            self.requester,
            list(self.call_ids),
        ]
        if self.action:
            fields.append(list(self.action))
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def decode(cls, value: str) -> Approval | None:
        """The approval a button carried; None for anything that is not one."""
        try:
            agent_id, session_id, run_id, requester, call_ids, *more = json.loads(value)
        except (ValueError, TypeError):
            return None
        if not all(isinstance(x, str) for x in (agent_id, session_id, run_id, requester)):
            return None
        if not isinstance(call_ids, list) or not all(isinstance(c, str) for c in call_ids):
            return None
        action = more[0] if len(more) == 1 else []
        if len(more) > 1 or not isinstance(action, list):
            return None
        if not all(isinstance(a, str) for a in action):
            return None
        return cls(agent_id, session_id, run_id, requester, tuple(call_ids), action=tuple(action))


@dataclass(frozen=True, slots=True)
class Decision:
    """A click: ``user`` (platform id, in ``workspace``) approves or rejects ``approval``."""

    platform: str
    workspace: str
    user: str
    approve: bool
    approval: Approval
    event_id: str = ""
    #: Slack Enterprise Grid: the team id behind the org id ``workspace`` (an admin alias)
    team: str | None = None

    @property
    def clicker(self) -> str:
        """The user key of the person who clicked (``bots.keys``)."""
        return user_key(self.platform, self.workspace, self.user)


def _short(text: str) -> str:
    return text if len(text) <= ARGS_CHARS else text[: ARGS_CHARS - 1] + "…"
