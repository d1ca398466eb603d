"""Retention per chat scope: which kind of conversation a session id is, and the
policy the settings ask for (``STATEBOT_RETENTION_{DM,THREAD,CHANNEL}_DAYS``).

The kind is read back from the key ``bots/keys.py`` built (the one format):

* ``dm``: a direct conversation — a channel its platform's traits call a DM
  (``PlatformTraits.is_dm_channel``: a Slack channel id starting with ``D``, a
  Discord key with the workspace ``dm``), or a user-scoped session (``…:@user``: one person's
  own session across channels);
* ``thread``: ``platform:workspace:channel:thread``;
* ``channel``: ``platform:workspace:channel`` (channel-scoped agents, slash commands
  typed in a channel, the console).

Anything else (ids made outside the chat layer) is no scope: kept forever.

:func:`retention_pass` is the one place a snapshotter's retention pass is built, for
``statebot snapshotter`` and for the snapshotter a bot process starts in itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from bots.keys import unescape
from bots.platforms import traits_for
from core.governance.retention import DEFAULT_BATCH_SIZE, Retention, RetentionPolicy

if TYPE_CHECKING:
    from bots.settings import Settings
    from core.db.base import BaseDb
    from core.db.snapshot import RetentionPass

RetentionScope = Literal["dm", "thread", "channel"]


def scope_of(session_id: str) -> RetentionScope | None:
    """The retention scope of a chat session id, or None when it is not one."""
    parts = session_id.split(":")
    if len(parts) not in (3, 4) or not all(parts):
        return None
    platform, workspace, channel = unescape(parts[0]), unescape(parts[1]), parts[2]
    if channel.startswith("@"):  # user scope; an escaped component never starts with "@"
        return "dm"
    traits = traits_for(platform)
    if traits is not None and traits.is_dm_channel(workspace, unescape(channel)):
        return "dm"
    return "thread" if len(parts) == 4 else "channel"


def retention_policy(
    *, dm: float | None = None, thread: float | None = None, channel: float | None = None
) -> RetentionPolicy:
    """Days per scope (None: kept forever) as a core policy."""
    return RetentionPolicy.by_class(scope_of, {"dm": dm, "thread": thread, "channel": channel})


def policy_from_settings(settings: Settings) -> RetentionPolicy:
    """The policy of ``STATEBOT_RETENTION_*_DAYS`` (no rules when none is set)."""
    return retention_policy(
        dm=settings.statebot_retention_dm_days,
        thread=settings.statebot_retention_thread_days,
        channel=settings.statebot_retention_channel_days,
    )


def retention_pass(
    db: BaseDb,
    policy: RetentionPolicy | None,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    clock: Callable[[], float] = time.time,
) -> RetentionPass | None:
    """The bounded pass a snapshotter runs to enforce ``policy`` on ``db`` (the RedisDb,
    so an expired session leaves every store together); None when it has no rules."""
    if policy is None or not policy.rules:
        return None
    return Retention(db, policy, batch_size=batch_size, clock=clock).run_pass
