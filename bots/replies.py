"""What the chat layer hands back to an adapter to send."""

from __future__ import annotations

from dataclasses import dataclass

from bots.approvals import Approval


@dataclass(frozen=True, slots=True)
class Reply:
    """Text to post; ``ephemeral`` asks the platform to show it to the sender only.

    ``approval``: the run waits for a person's yes; the adapter shows Approve / Reject
    buttons under ``text`` (which names the tool and its arguments).
    """

    text: str
    ephemeral: bool = False
    approval: Approval | None = None
