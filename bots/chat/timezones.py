"""Users' timezones from the platform profile (Slack ``users.info`` → ``tz``), cached.

Reminders and due dates are read in the user's timezone: the chat layer puts it in
the run's metadata under :data:`core.schedule.USER_TZ_KEY`. Lookups go through the
same bounded TTL cache as display names; a platform that does not say (Discord), or
a failed lookup, gives None, and the scheduling default (``STATEBOT_DEFAULT_TZ``)
applies.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bots.chat.names import NameCache, NameSource


@runtime_checkable
class TimezoneSource(Protocol):
    """A platform that knows users' IANA timezones."""

    async def user_tz(self, workspace: str, user: str) -> str | None:
        """The user's IANA timezone name, or None when unknown."""
        ...


class TimezoneCache(NameCache):
    """A :class:`NameCache` that also caches users' timezones."""

    __slots__ = ("_zones",)

    def __init__(self, source: NameSource, zones: TimezoneSource, **options: float) -> None:
        super().__init__(source, **options)  # type: ignore[arg-type]
        self._zones = zones

    async def user_tz(self, workspace: str, user: str) -> str | None:
        """The user's timezone (a valid IANA name), from the cache when fresh."""
        found = await self._get(
            ("z", workspace, user), lambda: self._zones.user_tz(workspace, user)
        )
        return found if found and valid_zone(found) else None


def valid_zone(name: str) -> bool:
    """True when ``name`` is an IANA zone this machine knows."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True
