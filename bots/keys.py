"""Session and user keys: the one place they are built.

    session_id = "{platform}:{workspace}:{channel}:{thread}"   thread scope (default)
    session_id = "{platform}:{workspace}:{channel}"            channel scope
    session_id = "{platform}:{workspace}:@{user}"              user scope
    user_id    = "{platform}:{workspace}:{user}"

Each component is percent-escaped ("%" -> "%25", ":" -> "%3A", "@" -> "%40"), so a
component never contains a separator and never starts with "@". That keeps the
mapping injective: two different conversations can never share a key, whatever ids
a platform hands us. A thread-scoped event without a thread (a slash command typed
in a channel, the console) belongs to the channel's session.

The parts come from the inbound record the adapter built (``bots.inbound``), which
carries its conversation's keys, built here once per event; an agent's other scope
is applied by ``ChatService.session_keys``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

Scope = Literal["thread", "channel", "user"]
SCOPES: tuple[Scope, ...] = ("thread", "channel", "user")

_ESCAPES = str.maketrans({"%": "%25", ":": "%3A", "@": "%40"})
_UNESCAPES = {"%25": "%", "%3A": ":", "%40": "@"}
_ESCAPED = re.compile("%25|%3A|%40", re.IGNORECASE)


def escape(component: str) -> str:
    """Escape one key component so it holds no separator and no user-scope marker."""
    return component.translate(_ESCAPES)


def unescape(component: str) -> str:
    """The raw component an escaped one was made from."""
    return _ESCAPED.sub(lambda m: _UNESCAPES[m[0].upper()], component)


def key_prefix(platform: str, workspace: str | None = None) -> str:
    """What every session and user key of a workspace (without one: a platform) starts with."""
    if workspace is None:
        return f"{escape(platform)}:"
    return f"{escape(platform)}:{escape(workspace)}:"


def parse_user_key(key: str) -> tuple[str, str, str]:
    """(platform, workspace, user) of a user key, unescaped; ValueError if it is not one."""
    parts = key.split(":")
    if len(parts) != 3 or not all(parts):
        raise ValueError(f"{key!r} is not a user key of the form platform:workspace:user")
    platform, workspace, user = (unescape(p) for p in parts)
    return platform, workspace, user


def session_key(
    platform: str,
    workspace: str,
    channel: str,
    thread: str | None,
    user: str,
    scope: Scope = "thread",
) -> str:
    """The session id of a conversation under ``scope``."""
    base = f"{escape(platform)}:{escape(workspace)}"
    if scope == "user":
        return f"{base}:@{escape(user)}"
    if scope == "channel" or thread is None:
        return f"{base}:{escape(channel)}"
    if scope == "thread":
        return f"{base}:{escape(channel)}:{escape(thread)}"
    raise ValueError(f"unknown session scope {scope!r}; expected one of {', '.join(SCOPES)}")


def user_key(platform: str, workspace: str, user: str) -> str:
    """The user id of a platform user within a workspace."""
    return f"{escape(platform)}:{escape(workspace)}:{escape(user)}"


@dataclass(frozen=True, slots=True)
class SessionKeys:
    """The pair of keys a run is made with."""

    session_id: str
    user_id: str


class KeyParts(Protocol):
    """What a key is made of: an inbound record (``bots.inbound``) has these parts."""

    @property
    def platform(self) -> str: ...
    @property
    def workspace(self) -> str: ...
    @property
    def channel(self) -> str: ...
    @property
    def thread(self) -> str | None: ...
    @property
    def user(self) -> str: ...


def keys_for(event: KeyParts, scope: Scope = "thread") -> SessionKeys:
    """Session and user keys of an inbound event."""
    return SessionKeys(
        session_id=session_key(
            event.platform, event.workspace, event.channel, event.thread, event.user, scope
        ),
        user_id=user_key(event.platform, event.workspace, event.user),
    )


def channel_key(platform: str, workspace: str, channel: str) -> str:
    """The stable key of a chat channel (``platform:workspace:channel``, escaped).

    It is the channel-scope session id of that channel, so a budget per channel and
    the channel's sessions name the channel the same way.
    """
    return session_key(platform, workspace, channel, None, "", "channel")


def channel_of_session(session_id: str) -> str | None:
    """The channel key a session id belongs to; None for a user-scoped or foreign id."""
    parts = session_id.split(":")
    if len(parts) not in (3, 4) or not all(parts) or parts[2].startswith("@"):
        return None
    return ":".join(parts[:3])


@dataclass(frozen=True, slots=True)
class SessionParts:
    """What a session id is made of, unescaped (None: not part of this scope's key)."""

    platform: str
    workspace: str
    channel: str | None
    thread: str | None
    user: str | None


def parse_session_key(session_id: str) -> SessionParts | None:
    """The parts of a session id built by :func:`session_key`; None for any other id."""
    parts = session_id.split(":")
    if len(parts) not in (3, 4) or not all(parts):
        return None
    platform, workspace = unescape(parts[0]), unescape(parts[1])
    if parts[2].startswith("@"):
        if len(parts) != 3:
            return None
        return SessionParts(platform, workspace, None, None, unescape(parts[2][1:]))
    thread = unescape(parts[3]) if len(parts) == 4 else None
    return SessionParts(platform, workspace, unescape(parts[2]), thread, None)
