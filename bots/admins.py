"""Who is an admin: the ``STATEBOT_ADMIN_IDS`` entries and the sessions each one covers.

An entry is an immutable platform user key, never a name. ``slack:T123:U456`` is user
U456 of workspace T123 and covers sessions of that workspace only (ids starting
``slack:T123:``); ``slack:*:U456`` is that user id in every workspace of the platform.
A bare ``U456`` is refused when the settings load (:func:`check_admin_id`), because a
user id alone does not say which workspace it belongs to.

The vocabulary of admin ids, checked here once: the settings validate entries with
:func:`check_admin_id`, and an :class:`AdminGrant` says which sessions an admin covers.
Whether a user is an admin, and what they may do, is decided in one place:
``bots.admin.policy``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bots.keys import parse_user_key, user_key

__all__ = ["WILDCARD", "AdminGrant", "check_admin_id"]

#: the workspace of an admin id that stands for every workspace of its platform
WILDCARD = "*"


def check_admin_id(entry: str) -> str:
    """The canonical form of one STATEBOT_ADMIN_IDS entry; ValueError saying how to fix it."""
    entry = entry.strip()
    if ":" not in entry:
        raise ValueError(
            f"STATEBOT_ADMIN_IDS: {entry!r} is a bare user id, which would be admin in "
            f"every workspace. Write the full user key platform:workspace:user "
            f"(e.g. slack:T0123ABC:{entry}), or platform:*:user for every workspace of "
            "that platform (e.g. discord:*:<user id>)"
        )
    try:
        platform, workspace, user = parse_user_key(entry)
    except ValueError as exc:
        raise ValueError(f"STATEBOT_ADMIN_IDS: {exc} (or platform:*:user)") from None
    return user_key(platform, workspace, user)


@dataclass(frozen=True, slots=True)
class AdminGrant:
    """The admin id a user matched and the sessions it lets them act on."""

    admin_id: str
    #: every session id this admin may act on starts with it
    scope: str

    def covers(self, session_id: str) -> bool:
        """True when ``session_id`` is inside this admin's workspace (or platform)."""
        return session_id.startswith(self.scope)
