"""What the chat layer hands back to an adapter to send."""

from __future__ import annotations

from dataclasses import dataclass

from bots.chat.approvals import Approval
from bots.chat.cards import Card


@dataclass(frozen=True, slots=True)
class Reply:
    """Text to post; ``ephemeral`` asks the platform to show it to the sender only.

    ``approval``: the run waits for a person's yes; the adapter shows Approve / Reject
    buttons under ``text`` (which names the tool and its arguments).

    ``card``: the same answer structured (a board, a state dump) for platforms that
    render it; ``text`` stays the complete plain-text fallback.
    """

    text: str
    ephemeral: bool = False
    approval: Approval | None = None
    card: Card | None = None
