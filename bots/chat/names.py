"""Who is who: display names for the model, resolved once per user and cached.

The model should read "Ana", not "U024BE7LH". Each adapter registers a
:class:`NameSource` (Slack: ``users.info``; Discord: the member); :class:`NameCache`
keeps answers for a bounded time and a bounded number of users, so a busy thread
costs one lookup per person per TTL. A failed lookup is not an error: the message
goes to the model with the raw id, and the lookup is retried after ``retry_after``.

:func:`render_mentions` turns the mentions of the message's platform (its traits'
``user_mention`` and ``channel_mention``: Slack's ``<@U…>``, ``<#C…|name>``, Discord's
``<@123>``/``<#123>``) into ``@Ana`` / ``#general`` before the model sees the text.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Protocol

import structlog

from bots.keys import parse_user_key, user_key
from bots.platforms import traits_for

log = structlog.get_logger(__name__)

Clock = Callable[[], float]


class NameSource(Protocol):
    """A platform's lookup of a user's or channel's display name (None: unknown)."""

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The display name of ``user`` in ``workspace``."""
        ...

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The name of ``channel`` in ``workspace`` (without ``#``)."""
        ...


class NameCache:
    """A bounded TTL cache in front of a :class:`NameSource`."""

    __slots__ = ("_clock", "_entries", "_max_entries", "_retry_after", "_source", "_ttl")

    def __init__(
        self,
        source: NameSource,
        *,
        ttl: float = 3600.0,
        max_entries: int = 10_000,
        retry_after: float = 60.0,
        clock: Clock = time.monotonic,
    ) -> None:
        self._source = source
        self._ttl = ttl
        self._retry_after = min(retry_after, ttl)
        self._max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[tuple[str, str, str], tuple[float, str | None]] = OrderedDict()

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The user's display name, from the cache when fresh."""
        return await self._get(
            ("u", workspace, user), lambda: self._source.user_name(workspace, user)
        )

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The channel's name, from the cache when fresh."""
        return await self._get(
            ("c", workspace, channel), lambda: self._source.channel_name(workspace, channel)
        )

    async def _get(
        self, key: tuple[str, str, str], fetch: Callable[[], Awaitable[str | None]]
    ) -> str | None:
        now = self._clock()
        hit = self._entries.get(key)
        if hit is not None and hit[0] > now:
            self._entries.move_to_end(key)
            return hit[1]
        ttl = self._ttl
        try:
            name = await fetch()
        except Exception as exc:  # a name is decoration: never fail the message for it
            log.warning("name_lookup_failed", kind=key[0], id=key[2], error=repr(exc))
            name, ttl = None, self._retry_after
        self._entries[key] = (now + ttl, name)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
        return name


async def render_mentions(
    text: str, *, platform: str, workspace: str, names: NameSource | None
) -> str:
    """``<@U1>`` -> ``@Ana``, ``<#C1|general>`` -> ``#general``, in the mention syntax of
    ``platform`` (none for a platform without traits); unknown ids stay as ids."""
    traits = traits_for(platform)
    user = traits.user_mention if traits is not None else None
    channel = traits.channel_mention if traits is not None else None
    users, channels = _labels(user, text), _labels(channel, text)
    for uid, label in users.items():
        if not label and names is not None:
            users[uid] = await names.user_name(workspace, uid)
    for cid, label in channels.items():
        if not label and names is not None:
            channels[cid] = await names.channel_name(workspace, cid)
    if user is not None:
        text = user.sub(lambda m: "@" + (users.get(m["id"]) or m["id"]), text)
    if channel is not None:
        text = channel.sub(lambda m: "#" + (channels.get(m["id"]) or m["id"]), text)
    return text


def _labels(pattern: re.Pattern[str] | None, text: str) -> dict[str, str | None]:
    """Each id ``pattern`` finds in ``text``, with the label its mention carries (if any)."""
    if pattern is None:
        return {}
    return {m["id"]: m.groupdict().get("label") for m in pattern.finditer(text)}


def authored(name: str | None, text: str) -> str:
    """The question as the model reads it: ``Ana: text`` when the author's name is known."""
    return f"{name}: {text}" if name else text


def user_reference(user_id: str | None, *, platform: str, workspace: str) -> str:
    """How a reply names the user behind a user key (``slack:T1:U2``), safely.

    A user of the reader's own platform and workspace is mentioned as the platform's
    traits say (``<@U2>``: the platform shows their name; Slack keeps only this markup,
    Discord replies allow no pings); anyone else, an id that does not look like one
    the platform mentions, or a platform without traits, is the key in a code span,
    so no text stored in a record can become markup the platform interprets.
    """
    if not user_id:
        return "someone unknown"
    try:
        owner, space, user = parse_user_key(user_id)
    except ValueError:
        return _code(user_id)
    traits = traits_for(platform)
    same = user_key(owner, space, user) == user_key(platform, workspace, user)
    mention = traits.mention(user) if same and traits is not None else None
    return mention or _code(user_id)


def _code(text: str) -> str:
    """``text`` as an inline code span that cannot be broken out of."""
    return "`" + text.replace("`", "'").replace("\n", " ") + "`"
