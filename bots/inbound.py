"""Platform-neutral inbound events: what every adapter turns a platform payload into.

Nothing below an adapter sees a platform type; routing, keying and the agents work
on these two frozen records only. Every decision about an event is made once, at the
edge, and carried here, so no layer below makes it again:

- ``addressed``: the message is for the bot (a mention, a DM, a thread it follows),
  decided by the adapter's parser (``bots/adapters/*/parse.py``; Slack's followed
  threads: ``bots/adapters/slack/addressing.py``);
- ``reply_thread``: the thread a reply goes to (None: the top level);
- ``keys``: the conversation's session and user keys (thread scope), built from the
  record's parts once, when it is made, by the rule in ``bots.keys``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bots.keys import SessionKeys, keys_for

__all__ = ["Attachment", "InboundMessage", "SlashCommand"]


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file attached to a message, as the platform described it (nothing downloaded).

    ``media_type`` is the platform's MIME type ("" when it gave none); ``size`` the size
    it declared (None: unknown); ``platform_id`` its id there (Slack ``F…``, Discord's
    attachment snowflake, the console's path); ``url`` where the adapter fetches it.
    ``bots.chat.attachments`` decides what is used, within the deployment's bounds.
    """

    name: str
    media_type: str
    size: int | None
    platform_id: str
    url: str


@dataclass(frozen=True, slots=True)
class InboundMessage:
    """One chat message, addressed (maybe) to the bot.

    ``thread`` is the conversation the message belongs to: the thread id when the
    message is in a thread, else (Slack, outside DMs) the message's own id, so a
    top-level message starts its own thread-scoped session. ``bot_mentioned`` is the
    fact that the text mentioned the bot; ``addressed`` the adapter's decision.
    """

    platform: str
    workspace: str
    channel: str
    thread: str | None
    user: str
    text: str
    event_id: str
    is_dm: bool = False
    mentions: tuple[str, ...] = ()
    bot_mentioned: bool = False
    addressed: bool = False
    reply_thread: str | None = None
    #: files and images attached to the message, in the order the platform lists them
    attachments: tuple[Attachment, ...] = ()
    keys: SessionKeys = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", keys_for(self))  # frozen: set once, here


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One slash command: ``/<command> <text>`` typed by ``user``.

    ``team``: on Slack Enterprise Grid, the workspace (team) the command was typed in
    when ``workspace`` is the org id the sessions are keyed by; an admin key written
    with the team id then still matches (``bots.admin.policy``). None elsewhere.
    """

    platform: str
    workspace: str
    channel: str
    thread: str | None
    user: str
    command: str
    text: str
    event_id: str
    is_dm: bool = False
    reply_thread: str | None = None
    team: str | None = None
    keys: SessionKeys = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", keys_for(self))  # frozen: set once, here
