"""Connecting a per-user MCP server with OAuth 2.1, per MCP's authorization spec.

The SDK's client side does the protocol (``mcp.client.auth.OAuthClientProvider``: the
server's protected-resource and authorization-server metadata, dynamic client
registration, PKCE, the token exchange, refresh). This module gives it what a chat bot
has instead of a local browser:

* :meth:`OAuthFlows.begin` starts one person's authorization in a task of its own and
  returns the authorization URL as soon as the SDK has made it (the chat layer posts it
  to them, ephemerally). The task then waits — at most ``FLOW_SECONDS`` — for the
  redirect to come back.
* :func:`complete` is called by the web app's callback route with the redirect's
  ``code`` and ``state``; the waiting flow gets the code, the SDK exchanges it, and the
  tokens (with the registered client) are stored sealed for that person
  (``core.governance.credentials``) with ``method="oauth"``.
* :class:`StoredTokens` is the SDK's token storage over that credential: a user's
  connection authenticates with :meth:`OAuthFlows.auth_for`, and a refreshed token is
  stored back the same way.

Flows live in the process that began them: the callback must reach that process (the
web app mounted in the bot's own HTTP server). ``state`` is random per flow (the SDK
checks it), and a flow nobody completes ends after ``FLOW_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Protocol, runtime_checkable
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp import ClientSession
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from core.utils.log import logger

__all__ = ["FLOW_SECONDS", "OAuthFlows", "OAuthStore", "StoredTokens", "abandon", "complete"]

#: how long a begun authorization waits for its redirect
FLOW_SECONDS = 600.0
#: flows waiting for their redirect in this process, by their ``state``
_WAITING: dict[str, asyncio.Future[AuthorizationCodeResult]] = {}


@runtime_checkable
class OAuthStore(Protocol):
    """Where OAuth credentials are kept (``core.governance.credentials.McpCredentials``)."""

    async def aget(self, user_id: str, server: str) -> dict[str, Any] | None:
        """The stored credential's fields, or None."""
        ...

    async def aconnect(
        self,
        user_id: str,
        server: str,
        token: str,
        *,
        method: str,
        extra: dict[str, Any] | None = None,
    ) -> Any:
        """Store a credential (replacing any)."""
        ...


class StoredTokens:
    """The SDK's ``TokenStorage`` over one person's stored credential."""

    __slots__ = ("client", "server", "store", "tokens", "user_id")

    def __init__(self, store: OAuthStore, user_id: str, server: str) -> None:
        self.store, self.user_id, self.server = store, user_id, server
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def _load(self) -> None:
        value = await self.store.aget(self.user_id, self.server)
        if value and value.get("method") == "oauth":
            self.tokens = OAuthToken.model_validate(value["oauth"])
            self.client = OAuthClientInformationFull.model_validate(value["client"])

    async def get_tokens(self) -> OAuthToken | None:
        if self.tokens is None:
            await self._load()
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        if self.client is not None:  # a refresh: kept at once; a new flow: when it ends
            await self.save()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.client is None:
            await self._load()
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info

    async def save(self) -> None:
        """Store the tokens and the registered client, sealed, for this person."""
        assert self.tokens is not None and self.client is not None
        await self.store.aconnect(
            self.user_id,
            self.server,
            self.tokens.access_token,
            method="oauth",
            extra={
                "oauth": self.tokens.model_dump(mode="json", exclude_none=True),
                "client": self.client.model_dump(mode="json", exclude_none=True),
            },
        )


class OAuthFlows:
    """Authorizations of one per-user server: begun from chat, completed by the callback."""

    __slots__ = ("_tasks", "metadata", "name", "store", "url")

    def __init__(
        self, name: str, url: str, store: OAuthStore, *, redirect_url: str, client_name: str
    ) -> None:
        self.name, self.url, self.store = name, url, store
        self.metadata = OAuthClientMetadata(
            redirect_uris=[redirect_url],  # type: ignore[list-item]  # validated to AnyUrl
            client_name=client_name,
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        )
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def under_way(self) -> int:
        """Authorizations begun here and not ended yet."""
        return len(self._tasks)

    def auth_for(self, user_id: str) -> OAuthClientProvider:
        """The httpx auth of a user's connection: their stored token, refreshed when due
        (a refresh is stored back); no new authorization (that is ``/connect``'s)."""
        storage = StoredTokens(self.store, user_id, self.name)
        return OAuthClientProvider(self.url, self.metadata, storage)

    async def begin(self, user_id: str, *, timeout: float = 30.0) -> str:
        """Start ``user_id``'s authorization; the URL to send them to. RuntimeError with
        the reason when the server cannot be authorized against."""
        loop = asyncio.get_running_loop()
        link: asyncio.Future[str] = loop.create_future()
        storage = StoredTokens(self.store, user_id, self.name)
        storage.client = None  # a new flow registers afresh; nothing stored is reused

        async def redirect(url: str) -> None:
            state = parse_qs(urlsplit(url).query).get("state", [""])[0]
            _WAITING[state] = loop.create_future()
            link.set_result(url)

        async def callback() -> AuthorizationCodeResult:
            state = parse_qs(urlsplit(link.result()).query).get("state", [""])[0]
            try:
                return await asyncio.wait_for(_WAITING[state], FLOW_SECONDS)
            finally:
                _WAITING.pop(state, None)

        provider = OAuthClientProvider(
            self.url, self.metadata, _FreshStorage(storage), redirect, callback
        )
        task = loop.create_task(self._authorize(provider, storage), name=f"mcp-oauth-{self.name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        either: set[asyncio.Future[Any]] = {link, task}
        done, _ = await asyncio.wait(either, timeout=timeout, return_when="FIRST_COMPLETED")
        if link in done:
            return link.result()
        if task in done and task.exception() is not None:
            raise RuntimeError(f"{self.name}: {_reason(task.exception())}")
        task.cancel()
        raise RuntimeError(f"{self.name}: the server did not offer an authorization in time")

    async def _authorize(self, provider: OAuthClientProvider, storage: StoredTokens) -> None:
        """Open a connection with ``provider``: its 401 runs the flow; then store it."""
        async with (
            httpx2.AsyncClient(auth=provider, timeout=30.0) as client,
            streamable_http_client(self.url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
        if storage.tokens is None or storage.client is None:
            raise RuntimeError("the server let the connection in without an authorization")
        await storage.save()
        logger.info("mcp_oauth_connected", server=self.name, user_id=storage.user_id)

    async def close(self) -> None:
        """End the flows still waiting for their redirect."""
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class _FreshStorage:
    """A new flow's storage: starts empty (no stored token or client is offered)."""

    __slots__ = ("inner",)

    def __init__(self, inner: StoredTokens) -> None:
        self.inner = inner

    async def get_tokens(self) -> OAuthToken | None:
        return self.inner.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.inner.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.inner.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.inner.client = client_info


def complete(state: str, code: str, iss: str | None = None) -> bool:
    """The redirect came back (the web app's callback): hand its code to the waiting
    flow; False when no flow in this process waits for ``state`` (unknown or expired)."""
    waiting = _WAITING.get(state)
    if waiting is None or waiting.done():
        return False
    waiting.get_loop().call_soon_threadsafe(
        _resolve, waiting, AuthorizationCodeResult(code=code, state=state, iss=iss)
    )
    return True


def abandon(state: str, reason: str) -> bool:
    """The redirect came back with an error (the person refused): end that flow."""
    waiting = _WAITING.get(state)
    if waiting is None or waiting.done():
        return False
    waiting.get_loop().call_soon_threadsafe(_fail, waiting, reason)
    return True


def _fail(waiting: asyncio.Future[AuthorizationCodeResult], reason: str) -> None:
    if not waiting.done():
        waiting.set_exception(RuntimeError(reason))


def _resolve(
    waiting: asyncio.Future[AuthorizationCodeResult], result: AuthorizationCodeResult
) -> None:
    if not waiting.done():
        waiting.set_result(result)


def _reason(exc: BaseException | None) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}" if exc is not None else "unknown failure"
