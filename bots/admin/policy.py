"""Who may do what: decided here once, by immutable platform user ids, never names.

- **Admins**: a ``STATEBOT_ADMIN_IDS`` entry (``bots.admins``) matching the user, or
  any user of a platform whose users own its store (the console). They may use
  ``/state`` on the sessions their grant covers, confirm a restore or an erase there,
  and see those sessions in the web console.
- **A paused run** is approved or rejected by the person who asked, or by an admin.
- **Anyone** may use ``/state usage`` on their own conversation
  (``bots.admin.parse.SELF_SERVICE``).

A grant covers the sessions (and user keys) of the admin's workspace, or of every
workspace of its platform for a ``platform:*:user`` entry, and never another
platform's. Chat reaches the approval rule through the admin commands the composition
root plugs in (``bots.chat.admin_seam``); the web console (``bots.web.access``,
``bots.web.guard``) and the ``/state`` commands call this module directly.
"""

from __future__ import annotations

from collections.abc import Collection

from bots.admins import WILDCARD, AdminGrant
from bots.chat.approvals import Decision
from bots.keys import key_prefix, parse_user_key, user_key

__all__ = ["AdminPolicy", "allows", "grant_for", "grant_of_admin_id"]


def grant_for(
    platform: str, workspace: str, user: str, admin_ids: Collection[str]
) -> AdminGrant | None:
    """The grant of a platform user, or None when they are not an admin."""
    pinned = user_key(platform, workspace, user)
    if pinned in admin_ids:
        return AdminGrant(pinned, key_prefix(platform, workspace))
    everywhere = user_key(platform, WILDCARD, user)
    if everywhere in admin_ids:
        return AdminGrant(everywhere, key_prefix(platform))
    return None


def grant_of_admin_id(admin_id: str, admin_ids: Collection[str]) -> AdminGrant | None:
    """The grant of a configured admin id (a web sign-in token names one), else None."""
    if admin_id not in admin_ids:
        return None
    platform, workspace, _user = parse_user_key(admin_id)
    scope = key_prefix(platform) if workspace == WILDCARD else key_prefix(platform, workspace)
    return AdminGrant(admin_id, scope)


def allows(grant: AdminGrant | None, target: str) -> bool:
    """True when ``grant`` lets its admin act on ``target`` (a session id or a user key)."""
    return grant is not None and grant.covers(target)


class AdminPolicy:
    """The admin ids of one service, and the platforms whose users own their store."""

    __slots__ = ("_admin_ids", "_owned")

    def __init__(self, admin_ids: Collection[str]) -> None:
        self._admin_ids = admin_ids
        self._owned: set[str] = set()

    def owned_by_its_user(self, platform: str) -> None:
        """Make every user of ``platform`` admin of that platform's own sessions.

        The console's rule: whoever runs it owns its store. Their grant covers only
        ``platform:workspace:`` sessions, never another platform's.
        """
        self._owned.add(platform)

    def grant(
        self, platform: str, workspace: str, user: str, *, team: str | None = None
    ) -> AdminGrant | None:
        """The admin grant of a user (an owned platform, else STATEBOT_ADMIN_IDS), or None.

        ``team``: on Slack Enterprise Grid the team id the event came from, while
        ``workspace`` (the org id) keys the sessions. An admin key written with the team
        id (``slack:T…:W…``, what a workspace shows) is accepted as an alias of the org
        key; its grant covers the sessions it can see: the org's (``slack:E…:``).
        """
        if platform in self._owned:
            return AdminGrant(user_key(platform, workspace, user), key_prefix(platform, workspace))
        found = grant_for(platform, workspace, user, self._admin_ids)
        if found is not None or not team or team == workspace:
            return found
        alias = grant_for(platform, team, user, self._admin_ids)
        if alias is None or alias.scope == key_prefix(platform):  # none, or platform-wide
            return alias
        return AdminGrant(alias.admin_id, key_prefix(platform, workspace))

    def may_decide(self, decision: Decision) -> bool:
        """True when the clicker may approve or reject the paused run: its asker, or an admin."""
        if decision.clicker == decision.approval.requester:
            return True
        grant = self.grant(
            decision.platform, decision.workspace, decision.user, team=decision.team
        )
        return grant is not None
