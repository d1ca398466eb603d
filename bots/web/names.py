"""Names instead of raw ids: who a user key is, which channel a session is in.

Decided here, once, for every page. The console asks the platform, as the bots do:
each adapter that can offers a :class:`NameSource` built from the deployment's own
settings (Slack: ``users.info`` / ``conversations.info`` with ``SLACK_BOT_TOKEN`` or
the install flow's tokens; Discord: its REST API with ``DISCORD_TOKEN``), listed in
``WebConfig.names``. Nothing is copied into the
store: names are not kept at rest (so erasure and retention have nothing more to
cover), and what the page shows is what the platform says now, not what a bot saw.

Bounded and never in the way: one :class:`~bots.chat.names.NameCache` per platform
(an hour per answer, 10,000 entries, a failure retried after a minute), at most
``CONCURRENCY`` lookups at once, and a page waits at most ``PAGE_BUDGET`` seconds for
them; a lookup still running then fills the cache for the next page. Whatever is not
known (no source for the platform, a lookup failed or is late, a DM with no name)
is shown as its id. A name always carries its id on hover (``title``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from bots.chat.names import NameCache, NameSource
from bots.keys import parse_session_key, parse_user_key

__all__ = ["CONCURRENCY", "PAGE_BUDGET", "ConsoleNames", "OfferedNames"]

#: seconds a page waits for names it does not have yet
PAGE_BUDGET = 1.5
#: lookups running at once, across every page of this console
CONCURRENCY = 8


@dataclass(frozen=True, slots=True)
class OfferedNames:
    """A platform's name lookup for the console, and how to release it (None: nothing)."""

    platform: str
    source: NameSource
    close: Callable[[], Awaitable[None]] | None = None


Lookup = tuple[str, str, str, str]  # (platform, "user" or "channel", workspace, id)


class ConsoleNames:
    """Labels for session ids and user keys, looked up through the offered sources."""

    __slots__ = ("_caches", "_closers", "_gate", "_inflight")

    def __init__(self, offered: Iterable[OfferedNames] = ()) -> None:
        offered = tuple(offered)
        self._caches = {o.platform: NameCache(o.source) for o in offered}
        self._closers = [o.close for o in offered if o.close is not None]
        self._gate: asyncio.Semaphore | None = None
        #: lookups under way, shared by every page asking for the same name (and kept
        #: referenced so one a page stopped waiting for finishes and fills the cache)
        self._inflight: dict[Lookup, asyncio.Task[str | None]] = {}

    async def labels(
        self, *, sessions: Iterable[str] = (), users: Iterable[str | None] = ()
    ) -> dict[str, str]:
        """``{id: label}`` for the ids whose names are known within the page budget."""
        if not self._caches:
            return {}
        return await self._labels(set(sessions), {u for u in users if u})

    async def _labels(self, sessions: set[str], users: set[str]) -> dict[str, str]:
        wanted = {_user_lookup(u) for u in users} | {_channel_lookup(s) for s in sessions}
        tasks = {w: self._task(w) for w in wanted if w is not None and w[0] in self._caches}
        if tasks:
            await asyncio.wait(set(tasks.values()), timeout=PAGE_BUDGET)
        found = {w: t.result() for w, t in tasks.items() if t.done() and not t.cancelled()}
        out: dict[str, str] = {}
        for user in users:
            name = found.get(_user_lookup(user) or ("", "", "", ""))
            if name:
                out[user] = name
        for session in sessions:
            label = _session_label(session, found)
            if label:
                out[session] = label
        return out

    def _task(self, lookup: Lookup) -> asyncio.Task[str | None]:
        """The lookup under way for ``lookup``, started if there is none."""
        task = self._inflight.get(lookup)
        if task is None:
            task = asyncio.ensure_future(self._look_up(lookup))
            self._inflight[lookup] = task
            task.add_done_callback(lambda _: self._inflight.pop(lookup, None))
        return task

    async def _look_up(self, lookup: Lookup) -> str | None:
        """One name, through the platform's cache (which turns a failure into None)."""
        platform, kind, workspace, ident = lookup
        cache = self._caches[platform]
        if self._gate is None:  # made in the serving loop
            self._gate = asyncio.Semaphore(CONCURRENCY)
        async with self._gate:
            if kind == "user":
                return await cache.user_name(workspace, ident)
            return await cache.channel_name(workspace, ident)

    async def aclose(self) -> None:
        """Stop lookups under way and release the sources (the console is stopping)."""
        for task in list(self._inflight.values()):
            task.cancel()
        for close in self._closers:
            await close()


def _user_lookup(user_id: str) -> Lookup | None:
    try:
        platform, workspace, user = parse_user_key(user_id)
    except ValueError:
        return None
    return platform, "user", workspace, user


def _channel_lookup(session_id: str) -> Lookup | None:
    parts = parse_session_key(session_id)
    if parts is None:
        return None
    if parts.user is not None:
        return parts.platform, "user", parts.workspace, parts.user
    return parts.platform, "channel", parts.workspace, parts.channel or ""


def _session_label(session_id: str, found: dict[Lookup, str | None]) -> str | None:
    """``#general``, ``#general › thread 1700000000.000100`` or ``@Ana`` (user scope)."""
    parts = parse_session_key(session_id)
    lookup = _channel_lookup(session_id)
    name = found.get(lookup) if lookup is not None else None
    if parts is None or not name:
        return None
    if parts.user is not None:
        return f"@{name}"
    return f"#{name}" + (f" › thread {parts.thread}" if parts.thread else "")
