"""One MCP server connection, owned by a task of its own: opened, watched, reopened.

The SDK's transports and sessions hold anyio cancel scopes, which must be entered and
left by the same task. So the connection lives in one long-lived *supervisor* task:
it opens the transport and the session, lists the tools, then waits — for
:meth:`MCPConnection.close`, for the server's ``notifications/tools/list_changed``
(the tools are listed again), for a call that found the connection gone, or for the
next liveness ping. Runs of any task call tools through the open session; a run on
another event loop (sync ``Agent.run``) is bridged to the connection's loop.

A connection that fails to open, or drops, is reopened with exponential backoff and
jitter (tenacity's wait), reset after every successful connection. Meanwhile calls
fail at once with a sentence saying the server is not connected and why; the tools
last listed stay offered, so the model sees the outage instead of a tool vanishing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, types
from mcp.shared.exceptions import MCPError
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, wait_exponential_jitter
from tenacity.wait import wait_base

from core.exceptions import MCPConnectionError
from core.utils.log import logger

__all__ = ["MCPConnection", "OpenTransport", "ToolsListed"]

#: opens the transport's (read, write) stream pair; entered and left by the supervisor
OpenTransport = Callable[[], AbstractAsyncContextManager[Any]]
#: told the server's tools after each listing
ToolsListed = Callable[[list[types.Tool]], None]
T = TypeVar("T")

#: the first retry waits about this long (plus up to 1 s of jitter), doubling up to BACKOFF_MAX
BACKOFF_INITIAL = 0.5
BACKOFF_MAX = 30.0
#: seconds between liveness pings of an idle connection
PING_INTERVAL = 30.0


class MCPConnection:
    """A supervised connection to one server; :meth:`call` from any task or loop."""

    __slots__ = (
        "_closing",
        "_connect_timeout",
        "_first_try",
        "_loop",
        "_on_tools",
        "_open",
        "_ping_interval",
        "_refresh",
        "_session",
        "_task",
        "_wait",
        "_wake",
        "attempts",
        "last_error",
        "name",
    )

    def __init__(
        self,
        name: str,
        open_transport: OpenTransport,
        on_tools: ToolsListed,
        *,
        connect_timeout: float = 30.0,
        ping_interval: float = PING_INTERVAL,
        backoff: wait_base | None = None,
    ) -> None:
        self.name = name
        self._open = open_transport
        self._on_tools = on_tools
        self._connect_timeout = connect_timeout
        self._ping_interval = ping_interval
        self._wait = backoff or wait_exponential_jitter(multiplier=BACKOFF_INITIAL, max=BACKOFF_MAX)
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._first_try: asyncio.Event | None = None
        self._wake: asyncio.Event | None = None
        self._closing = False
        self._refresh = False
        #: failed attempts since the last successful connection
        self.attempts = 0
        #: why the last attempt failed or the connection ended (None: connected)
        self.last_error: str | None = None

    @property
    def connected(self) -> bool:
        """Whether calls can be made now."""
        return self._session is not None

    @property
    def started(self) -> bool:
        """Whether the supervisor runs (connected or reconnecting)."""
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        """Start the supervisor on this loop and wait for its first attempt (bounded)."""
        if not self.started:
            self._closing = False
            self._loop = asyncio.get_running_loop()
            self._first_try = asyncio.Event()
            self._wake = asyncio.Event()
            self._task = self._loop.create_task(self._supervise(), name=f"mcp-{self.name}")
        if self._loop is not asyncio.get_running_loop():
            return  # started on another loop: its first attempt is that loop's to await
        assert self._first_try is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._first_try.wait(), self._connect_timeout + 1.0)

    async def close(self) -> None:
        """Close the session and the transport (the supervisor's own task does it)."""
        task = self._task
        if task is None or task.done() or self._loop is None:
            self._task = None  # already ended (closed, or its event loop ended)
            return
        self._closing = True
        if self._loop is not asyncio.get_running_loop():
            await self._bridged(self.close())
            return
        self._poke()
        try:
            await asyncio.wait_for(asyncio.shield(task), self._connect_timeout)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._task = None

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call ``tool``; MCPConnectionError when the server cannot be reached.

        An error the server answers with (unknown tool, bad arguments) is raised as the
        SDK's MCPError; an ``is_error`` result is returned as it is.
        """
        if not self.started:  # never opened, closed, or its event loop has ended
            raise MCPConnectionError(self.name, self._unavailable())
        if self._loop is not asyncio.get_running_loop():
            return await self._bridged(self.call(tool, arguments))
        session = self._session
        if session is None:
            raise MCPConnectionError(self.name, self._unavailable())
        try:
            return await session.call_tool(tool, arguments)
        except MCPError as exc:
            if exc.code != types.CONNECTION_CLOSED:
                raise
            if self._closing:
                raise MCPConnectionError(
                    self.name, "the connection was closed during the call"
                ) from None
            self._lost(session, "the connection closed during the call")
            raise MCPConnectionError(
                self.name, "the connection was lost during the call; reconnecting"
            ) from None

    def _unavailable(self) -> str:
        if not self.started:
            return "not connected (the connection is closed)"
        if self.last_error is None:
            return "not connected yet (connecting)"
        if not self.attempts:
            return f"not connected ({self.last_error}; reconnecting)"
        tries = f"{self.attempts} failed attempt{'s' if self.attempts != 1 else ''}"
        return f"not connected ({self.last_error}; reconnecting, {tries} so far)"

    def _lost(self, session: ClientSession, why: str) -> None:
        """A call found ``session`` closed: let the supervisor reopen it now."""
        if self._session is session:
            self._session = None
            self.last_error = why
            self._poke()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    async def _bridged(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the connection's loop (cancelled with the caller)."""
        assert self._loop is not None
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    # -- the supervisor ----------------------------------------------------------------
    async def _supervise(self) -> None:
        """Keep a connection open until closed: each round retries opening with backoff."""
        assert self._first_try is not None
        while not self._closing:
            retrying = AsyncRetrying(
                wait=self._wait,
                # a cancelled supervisor (its loop ending) stops; failures are retried
                retry=retry_if_exception(
                    lambda exc: isinstance(exc, Exception) and not self._closing
                ),
                sleep=self._pause,
                before_sleep=self._failed,
                reraise=True,
            )
            try:
                async for attempt in retrying:
                    with attempt:
                        await self._serve_once()
            except Exception:  # only when closing stopped the retries: nothing to report
                pass
            finally:
                self._session = None
                self._first_try.set()
            if not self._closing:  # it had connected, then dropped: reopen soon, afresh
                await self._pause(BACKOFF_INITIAL)

    def _failed(self, state: RetryCallState) -> None:
        """An attempt failed: say why, and count it for the callers' messages."""
        assert self._first_try is not None and state.outcome is not None
        error = state.outcome.exception()
        self.last_error = _describe(error) if error is not None else "unknown failure"
        self.attempts = state.attempt_number
        self._first_try.set()
        logger.warning(
            "mcp_connection_failed", server=self.name, error=self.last_error, attempt=self.attempts
        )

    async def _pause(self, seconds: float) -> None:
        """Sleep between attempts; :meth:`close` ends it early."""
        assert self._wake is not None
        self._wake.clear()
        if self._closing:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), seconds)

    async def _serve_once(self) -> None:
        """Open, list, and wait until closed or dropped; raises when opening fails."""
        assert self._wake is not None and self._first_try is not None
        async with (
            self._open() as (read, write),
            ClientSession(read, write, message_handler=self._on_message) as session,
        ):
            with anyio.fail_after(self._connect_timeout):
                await session.initialize()
                await self._list(session)
            self._session, self.last_error, self.attempts = session, None, 0
            self._first_try.set()
            logger.info("mcp_connected", server=self.name)
            while not self._closing:
                self._wake.clear()
                # a notice that came while listing is not lost with the clear
                if not self._refresh and self._session is session and not self._closing:
                    with anyio.move_on_after(self._ping_interval):
                        await self._wake.wait()
                if self._closing:
                    break
                if self._session is not session:  # a call saw it close
                    logger.warning("mcp_connection_lost", server=self.name, error=self.last_error)
                    return
                with anyio.fail_after(self._connect_timeout):
                    if self._refresh:
                        self._refresh = False
                        await self._list(session)
                    else:
                        await session.send_ping()

    async def _list(self, session: ClientSession) -> None:
        tools: list[types.Tool] = []
        cursor: str | None = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self._on_tools(tools)

    async def _on_message(self, message: object) -> None:
        # called by the session's receive loop: never call the server from here (its
        # answer could not be read); the supervisor lists the tools again
        if isinstance(message, types.ToolListChangedNotification):
            self._refresh = True
            self._poke()


def _describe(exc: BaseException) -> str:
    """A one-line reason for people (nested task-group errors unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(inner) for inner in exc.exceptions)
    if isinstance(exc, TimeoutError):
        return "the server did not answer in time"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
