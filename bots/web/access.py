"""Who is signed in and what they may see: the admin policy of chat ``/state``
(``bots.admin.policy``: the same admin ids and workspace scope), re-checked on every
request so removing an id from ``STATEBOT_ADMIN_IDS`` ends its console access at the
next restart (and its sessions everywhere: ``bots.web.revocation``)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bots.admin.policy import allows, grant_for, grant_of_admin_id
from bots.admins import AdminGrant


@dataclass(frozen=True, slots=True)
class Viewer:
    """A signed-in admin: their id, the session ids they may see, and secrets or not."""

    grant: AdminGrant
    #: sees values under credential names unredacted
    reveal: bool = False

    @property
    def admin_id(self) -> str:
        """The STATEBOT_ADMIN_IDS entry they signed in as."""
        return self.grant.admin_id

    @property
    def scope(self) -> str:
        """Every session id they may see starts with it."""
        return self.grant.scope

    def covers(self, session_id: str) -> bool:
        """True when ``session_id`` is inside their workspace (or platform)."""
        return allows(self.grant, session_id)


def grant_of_platform_user(
    platform: str, workspace: str, user: str, admin_ids: Collection[str]
) -> AdminGrant | None:
    """The grant of a user a platform vouched for (Sign in with Slack), else None."""
    return grant_for(platform, workspace, user, admin_ids)


def viewer_for(
    admin_id: str, admin_ids: Collection[str], reveal_ids: Collection[str]
) -> Viewer | None:
    """The viewer a signed-in admin id stands for now, None when it is no longer an admin."""
    grant = grant_of_admin_id(admin_id, admin_ids)
    if grant is None:
        return None
    return Viewer(grant, reveal=admin_id in reveal_ids)
