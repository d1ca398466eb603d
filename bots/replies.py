"""What the chat layer hands back to an adapter to send."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Reply:
    """Text to post; ``ephemeral`` asks the platform to show it to the sender only."""

    text: str
    ephemeral: bool = False
