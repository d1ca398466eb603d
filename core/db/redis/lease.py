"""Run leases in Redis: runs of one session go one at a time, FIFO, across processes.

A caller takes a ticket (an arrival number in the session's ``queue``) and the lease
key when it is both free and the ticket is the oldest live one. At most
``max_waiters`` tickets queue per session; the next arrival is refused at once with
SessionBusyError (checked inside the ACQUIRE script, so atomically across processes).

Waiting holds no connection. Each process (each event loop) has one *wait room*: one
pub/sub connection that hears every hand-off of this key prefix, and one heartbeat
that refreshes all of the process's tickets of a session in one script call every
``stale / 3`` seconds. On release the holder hands the lease straight to the oldest
live waiter and publishes that waiter's ticket; the room wakes it and it confirms with
one ACQUIRE. A waiter also re-checks every ``poll`` seconds, in case a message was
missed. A ticket whose process stops its heartbeat (the process died) is dropped
after ``stale`` seconds so it never blocks the queue, and a lease whose holder died
expires after ``lock_ttl``; the next heartbeat of any waiting process then hands it on.

The token is checked by every save (fencing), so a holder whose lease expired and was
taken over cannot write. A holder's keep-alive renews the lease every ``lock_ttl / 3``
seconds, but never past the run's deadline (``Lease.renew_until``): there it releases
the lease, so a hung run cannot hold its session even if it ignores cancellation.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import uuid
import weakref
from collections.abc import AsyncIterator, Sequence
from typing import Any

from core.db import lease_waits
from core.db.lease_holding import holding
from core.db.records import Lease
from core.db.redis import lease_scripts as scripts
from core.db.redis.client import RedisClients
from core.db.redis.keys import SessionKeys
from core.db.redis.scripts import LuaScript
from core.exceptions import LockTimeoutError, SessionBusyError
from core.utils.log import log_warning


class LeaseManager:
    """Acquire, renew and release session leases."""

    __slots__ = (
        "_clients",
        "_prefix",
        "_rooms",
        "channel",
        "lock_ttl",
        "max_waiters",
        "poll",
        "stale",
    )

    def __init__(
        self,
        clients: RedisClients,
        prefix: str,
        *,
        lock_ttl: float,
        stale: float = 3.0,
        max_waiters: int | None = 100,
    ) -> None:
        if lock_ttl <= 0:
            raise ValueError(f"lock_ttl must be positive, not {lock_ttl}")
        if max_waiters is not None and max_waiters < 1:
            raise ValueError(f"max_waiters must be at least 1 or None, not {max_waiters}")
        self._clients = clients
        self._prefix = prefix
        self.lock_ttl = lock_ttl
        self.stale = stale
        self.max_waiters = max_waiters
        #: seconds between a waiter's own re-checks: only a safety net for a missed
        #: hand-off message (heartbeats keep tickets alive and hand on expired leases)
        self.poll = stale * 5
        #: pub/sub channel announcing hand-offs of this prefix (a channel, not a key)
        self.channel = f"{prefix}lease:handoff"
        self._rooms: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _WaitRoom] = (
            weakref.WeakKeyDictionary()
        )

    def _ms(self, seconds: float) -> int:
        return max(1, int(seconds * 1000))

    def _lease_keys(self, keys: SessionKeys) -> list[str]:
        return [keys.lease, keys.queue, keys.alive, keys.seq]

    def _room(self) -> _WaitRoom:
        loop = asyncio.get_running_loop()
        room = self._rooms.get(loop)
        if room is None:
            room = self._rooms[loop] = _WaitRoom(self)
        return room

    async def acquire(self, session_id: str, timeout: float | None) -> Lease:
        """Wait for the lease (FIFO); SessionBusyError at once past ``max_waiters``,
        LockTimeoutError after ``timeout`` seconds."""
        lease, _ = await self.acquire_with(session_id, timeout)
        return lease

    async def acquire_with(
        self,
        session_id: str,
        timeout: float | None,
        script: LuaScript = scripts.ACQUIRE,
        more_keys: Sequence[str] = (),
        more_args: Sequence[Any] = (),
    ) -> tuple[Lease, list[Any] | None]:
        """:meth:`acquire` through ``script``: ACQUIRE, or one that takes the lease the
        same way (its KEYS and ARGV extended by ``more_*``) and then does more in the
        same round trip (OPEN). Returns the lease and, when that script granted it, its
        reply as a list (None when the lease came by a last-moment hand-off)."""
        keys = SessionKeys(self._prefix, session_id)
        ticket = uuid.uuid4().hex
        client = self._clients.get()
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        me = asyncio.current_task()
        args = [
            ticket,
            self._ms(self.lock_ttl),
            self._ms(self.stale),
            self.max_waiters or 0,
            *more_args,
        ]
        script_keys = [*self._lease_keys(keys), *more_keys]
        room: _WaitRoom | None = None
        try:
            with self._clients.unavailable(f"lock session {session_id!r}"):
                while True:
                    reply = await script(client, script_keys, args)
                    reply = reply if isinstance(reply, list) else [reply]
                    got = int(reply[0])
                    if got == 1:
                        return Lease(session_id, ticket), reply
                    if got == -1:
                        break
                    if room is None:  # queued: from now on the room watches over us
                        room = self._room()
                        room.join(keys, ticket)
                        if lease_waits.listening():  # one ZRANK, only for a listener
                            await self._tell_place(keys, ticket)
                        await room.listening()
                        continue  # a hand-off may have been announced before we listened
                    wait = self.poll
                    if deadline is not None:
                        wait = min(wait, deadline - loop.time())
                        if wait <= 0:
                            break
                    await room.wait(ticket, wait)
                    if me is not None and me.cancelling():
                        # redis-py may swallow a cancellation that lands inside a command
                        raise asyncio.CancelledError
        except BaseException:
            # cancelled or Redis failed: leave no ticket behind (and no lease if granted)
            with contextlib.suppress(Exception):
                if await asyncio.shield(self._cancel(keys, ticket)):
                    await asyncio.shield(self.release(Lease(session_id, ticket)))
            raise
        finally:
            if room is not None:
                room.leave(ticket)
        if got == -1:
            raise SessionBusyError(session_id, self.max_waiters or 0)
        with self._clients.unavailable(f"stop waiting for session {session_id!r}"):
            if await self._cancel(keys, ticket):
                return Lease(session_id, ticket), None  # handed over at the last moment
        raise LockTimeoutError(
            f"session {session_id!r} stayed busy for more than {timeout}s: another run "
            "holds its lease; nothing was changed, try again later"
        )

    async def _tell_place(self, keys: SessionKeys, ticket: str) -> None:
        """Tell the run's listener how many runs are ahead; a notice never fails the run."""
        try:
            rank = await self._clients.get().zrank(keys.queue, ticket)
        except Exception as exc:  # the wait goes on (its own commands report a real outage)
            log_warning("could not read a queued run's place", error=str(exc))
            rank = 0
        lease_waits.queued((rank if isinstance(rank, int) else 0) + 1)

    async def _cancel(self, keys: SessionKeys, ticket: str) -> bool:
        return bool(
            await scripts.CANCEL(
                self._clients.get(),
                [keys.lease, keys.queue, keys.alive],
                [ticket, self._grant_ms(), self.channel],
            )
        )

    def handoff_args(self) -> list[int | str]:
        """What a release needs besides the token: how long a handed-on lease lives,
        and the channel that announces it (SAVE_RELEASE takes them too)."""
        return [self._grant_ms(), self.channel]

    def _grant_ms(self) -> int:
        # a handed-over lease lives only as long as a waiter may be silent, so a waiter
        # that died while queued delays the others by at most ``stale``
        return self._ms(min(self.lock_ttl, self.stale))

    async def heartbeat(self, keys: SessionKeys, tickets: list[str]) -> int:
        """Refresh this process's queued tickets of one session; hand on an expired lease."""
        with self._clients.unavailable(f"keep waiting for session {keys.session_id!r}"):
            return int(
                await scripts.HEARTBEAT(
                    self._clients.get(),
                    self._lease_keys(keys),
                    [self._ms(self.stale), self._grant_ms(), self.channel, *tickets],
                )
            )

    async def renew(self, lease: Lease, ttl: float | None = None) -> bool:
        """Extend a held lease (by ``lock_ttl``, or ``ttl``); False when it was lost."""
        keys = SessionKeys(self._prefix, lease.session_id)
        with self._clients.unavailable(f"renew the lease of session {lease.session_id!r}"):
            result = await scripts.RENEW(
                self._clients.get(), [keys.lease], [lease.token, self._ms(ttl or self.lock_ttl)]
            )
        return bool(result)

    async def release(self, lease: Lease) -> bool:
        """Give the lease back and wake the next waiter; False when it was not held."""
        keys = SessionKeys(self._prefix, lease.session_id)
        with self._clients.unavailable(f"release the lease of session {lease.session_id!r}"):
            result = await scripts.RELEASE(
                self._clients.get(),
                [keys.lease, keys.queue, keys.alive],
                [lease.token, self._grant_ms(), self.channel],
            )
        return bool(result)

    async def held(self, session_id: str) -> bool:
        """Whether the session's lease is held now, by any process."""
        keys = SessionKeys(self._prefix, session_id)
        with self._clients.unavailable(f"read the lease of session {session_id!r}"):
            return bool(await self._clients.get().exists(keys.lease))

    async def held_all(self) -> dict[str, str]:
        """Every lease held now, by any process: lease key -> holder token (the keys
        hold hashed session ids, which is enough to wait for a holder to let go)."""
        pattern = _glob_escape(self._prefix) + "{b*}:s:*:lease"
        client = self._clients.get()
        held: dict[str, str] = {}
        with self._clients.unavailable("list the held leases"):
            async for key in client.scan_iter(match=pattern, count=1000):
                token = await client.get(key)
                if token is not None:
                    held[_text(key)] = _text(token)
        return held

    async def waiting(self, session_id: str) -> int:
        """How many tickets are queued for a session (for tests and admin)."""
        keys = SessionKeys(self._prefix, session_id)
        with self._clients.unavailable("count waiters"):
            return int(await self._clients.get().zcard(keys.queue))

    @contextlib.asynccontextmanager
    async def hold(self, session_id: str, timeout: float | None) -> AsyncIterator[Lease]:
        """Hold the lease for the duration of a run, renewing it in the background."""
        lease = await self.acquire(session_id, timeout)
        async with holding(self, lease) as held:
            yield held


def _glob_escape(text: str) -> str:
    """``text`` matched literally by a SCAN pattern."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class _WaitRoom:
    """The waiters of one process (one event loop): one listener, one heartbeat.

    Runs only while some ticket waits, so an idle process holds no pub/sub connection.
    """

    __slots__ = ("_leases", "_listening", "_task", "_tickets", "_wakes")

    def __init__(self, leases: LeaseManager) -> None:
        self._leases = leases
        self._tickets: dict[str, SessionKeys] = {}
        self._wakes: dict[str, asyncio.Event] = {}
        self._listening = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def join(self, keys: SessionKeys, ticket: str) -> None:
        """Watch over a queued ticket: heartbeat it, wake it on its hand-off."""
        self._tickets[ticket] = keys
        self._wakes[ticket] = asyncio.Event()
        if self._task is None or self._task.done():
            self._listening.clear()
            # shared by every waiter: it must not log with the first waiter's event ids
            self._task = asyncio.create_task(self._run(), context=contextvars.Context())

    def leave(self, ticket: str) -> None:
        """Stop watching a ticket (it got the lease, gave up or failed)."""
        self._tickets.pop(ticket, None)
        self._wakes.pop(ticket, None)

    async def listening(self) -> None:
        """Wait (briefly) until hand-offs are heard; polling covers a slow or failed start."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._listening.wait(), 1.0)

    async def wait(self, ticket: str, seconds: float) -> None:
        """Until the ticket's hand-off is announced, or ``seconds`` pass."""
        wake = self._wakes.get(ticket)
        if wake is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), max(seconds, 0.001))
        wake.clear()

    async def _run(self) -> None:
        leases = self._leases
        beat_every = leases.stale / 3
        pubsub = leases._clients.get().pubsub()
        try:
            await pubsub.subscribe(leases.channel)
        except Exception as exc:  # waiters fall back on polling
            log_warning("cannot listen for lease hand-offs; waiters poll", error=str(exc))
        self._listening.set()
        next_beat = 0.0
        loop = asyncio.get_running_loop()
        try:
            while self._tickets:
                if loop.time() >= next_beat:
                    next_beat = loop.time() + beat_every
                    await self._beat()
                try:
                    message = await pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=min(beat_every, 0.2)
                    )
                except Exception:  # no subscription (Redis blip): wait, then beat on
                    await asyncio.sleep(min(beat_every, 0.2))
                    continue
                if message is not None:
                    wake = self._wakes.get(str(message["data"]))
                    if wake is not None:
                        wake.set()
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _beat(self) -> None:
        by_session: dict[str, tuple[SessionKeys, list[str]]] = {}
        for ticket, keys in list(self._tickets.items()):
            by_session.setdefault(keys.lease, (keys, []))[1].append(ticket)
        for keys, tickets in by_session.values():
            try:
                await self._leases.heartbeat(keys, tickets)
            except Exception as exc:  # the next beat retries; tickets live for ``stale``
                log_warning("lease heartbeat failed", session_id=keys.session_id, error=str(exc))
