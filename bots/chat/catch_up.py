"""Thread catch-up: the messages of a thread before the bot was first asked in it.

When someone mentions the bot in a thread that already has a conversation, the
model should read what was said. The adapter offers the thread's earlier messages
(:class:`EarlierMessages`: Slack ``conversations.replies``, Discord channel
history, each in its own folder); this module bounds them and renders them as the
run history reads (``Ana: text``, mentions as ``@Bo`` / ``#general``, the bot's
own messages as ``You:``), and ``core.run.catch_up`` gives the text to the model
**once**: on the run that creates the thread's session. Nothing here is stored;
later runs see the first run in their history, not the catch-up.

Bounds: at most ``count`` messages (the latest before the mention; the agent's
``catch_up``, else ``STATEBOT_CATCH_UP``; 0 turns it off) and ``chars`` characters
of rendered text (``STATEBOT_CATCH_UP_CHARS``): older messages are left out first,
and the header says how many were.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bots.chat.names import NameSource, authored, render_mentions

__all__ = ["CatchUp", "EarlierMessage", "EarlierMessages", "catch_up_of", "render_earlier"]

HEADER = "Earlier messages in this thread, before you were asked (oldest first{skipped}):"
#: how the bot's own earlier messages are labelled (the model wrote them)
SELF = "You"
CUT = " […]"


@dataclass(frozen=True, slots=True)
class EarlierMessage:
    """One earlier message: its author's platform id, its text, whether the bot wrote it."""

    user: str
    text: str
    from_bot: bool = False


class EarlierMessages(Protocol):
    """A platform's fetch of the thread a message belongs to."""

    async def fetch(self, limit: int) -> Sequence[EarlierMessage]:
        """Up to the ``limit`` latest messages before the mention, oldest first."""
        ...


@dataclass(frozen=True, slots=True)
class CatchUp:
    """What one first mention may read: the source, and its bounds."""

    source: EarlierMessages
    platform: str
    workspace: str
    count: int
    chars: int

    async def text(self, names: NameSource | None) -> str | None:
        """The rendered catch-up (None when the thread had nothing before the mention)."""
        if self.count <= 0 or self.chars <= 0:
            return None
        messages = list(await self.source.fetch(self.count))[-self.count :]
        return await render_earlier(
            messages,
            platform=self.platform,
            workspace=self.workspace,
            names=names,
            chars=self.chars,
        )



def catch_up_of(
    agent: object,
    scope: str,
    earlier: EarlierMessages | None,
    *,
    platform: str,
    workspace: str,
    count: int,
    chars: int,
) -> CatchUp | None:
    """The catch-up a first mention gets: a thread-scoped agent's, when it is on (the
    agent's own ``catch_up`` over the setting's ``count``; 0 turns it off)."""
    if earlier is None or scope != "thread":
        return None  # a channel's or a user's session is not this thread's
    own = getattr(agent, "catch_up", None)
    count = count if own is None else int(own)
    return CatchUp(earlier, platform, workspace, count, chars) if count > 0 else None

async def render_earlier(
    messages: Sequence[EarlierMessage],
    *,
    platform: str,
    workspace: str,
    names: NameSource | None,
    chars: int,
) -> str | None:
    """``messages`` as lines the model reads, the latest kept within ``chars``."""
    lines: list[str] = []
    used = 0
    for message in reversed(messages):  # newest first: the oldest are the ones left out
        text = message.text.strip()
        if not text:
            continue
        line = await _line(message, text, platform=platform, workspace=workspace, names=names)
        room = chars - used
        if len(line) > room:
            if not lines and room > len(CUT):  # the newest alone is too long: cut it
                lines.append(line[: room - len(CUT)] + CUT)
            break
        lines.append(line)
        used += len(line) + 1
    if not lines:
        return None
    skipped = sum(1 for m in messages if m.text.strip()) - len(lines)
    note = f"; {skipped:,} older not shown" if skipped else ""
    return "\n".join([HEADER.format(skipped=note), *reversed(lines)])


async def _line(
    message: EarlierMessage,
    text: str,
    *,
    platform: str,
    workspace: str,
    names: NameSource | None,
) -> str:
    text = await render_mentions(text, platform=platform, workspace=workspace, names=names)
    if message.from_bot:
        return authored(SELF, text)
    author = await names.user_name(workspace, message.user) if names and message.user else None
    return authored(author or message.user or "someone", text)
