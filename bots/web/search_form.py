"""The sessions page's search form, read into a :class:`~core.governance.search.SessionQuery`.

Platform, workspace and channel are key components (``bots/keys.py`` escapes them
the way session ids are built), so a search by channel finds that channel's sessions
and its threads' and nothing else. A user is a full user key (``slack:T1:U1``) or,
with platform and workspace given, a bare platform user id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import cast

from bots.keys import escape, key_prefix, user_key
from core.governance.search import SessionQuery, Status

FIELDS = ("platform", "workspace", "channel", "user", "agent", "status")
STATUSES = ("dirty", "quarantined", "clean")


class SearchError(ValueError):
    """A search that cannot be made; the message says how to fix it."""


@dataclass(frozen=True, slots=True)
class SearchForm:
    """What was typed (shown back in the form) and the query it stands for."""

    values: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, params: Mapping[str, str]) -> SearchForm:
        """The form's fields from query parameters (blank ones left out)."""
        return cls({k: params[k].strip() for k in FIELDS if params.get(k, "").strip()})

    def query(self, scope: str) -> SessionQuery:
        """The query, within ``scope``; SearchError for an incomplete combination."""
        v = self.values
        platform, workspace, channel = v.get("platform"), v.get("workspace"), v.get("channel")
        if workspace and not platform:
            raise SearchError("A workspace needs its platform (the first part of its session ids).")
        if channel and not workspace:
            raise SearchError("A channel needs its platform and workspace.")
        prefix = ""
        if platform:
            prefix = key_prefix(platform, workspace)
        if channel:
            prefix += escape(channel)
        user = v.get("user")
        if user and ":" not in user:
            if not (platform and workspace):
                raise SearchError(
                    "Give a full user key (platform:workspace:user), or the platform and "
                    "workspace with a bare user id."
                )
            user = user_key(platform, workspace, user)
        status = v.get("status")
        if status is not None and status not in STATUSES:
            raise SearchError(f"Status is one of {', '.join(STATUSES)}.")
        return SessionQuery(
            id_prefix=prefix,
            scope=scope,
            agent=v.get("agent"),
            user=user,
            status=cast(Status | None, status),
        )
