"""``/<agent> undo`` and ``@bot <agent> undo``: take back your own last change here.

Every agent gets the word ``undo`` for free: it reverts the caller's last change in
this conversation's session for that agent (``core.governance.audit.undo_last``, under the
session lease, saved as a new version with the caller in the audit trail). A change
someone made later on the same values is not overwritten: the reply explains the
conflict (core says who changed what) and nothing changes. Nothing of yours to undo
is said plainly.

A real tool (or alias) named ``undo`` wins: an agent that ships its own ``undo``
keeps it, and the built-in one is not offered for that agent (the help says so).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from bots.chat.commands import ToolLike, resolve_tool
from bots.chat.names import user_reference
from bots.chat.replies import Reply
from bots.chat.turns import Turn
from bots.keys import SessionKeys
from core.db.base import BaseDb
from core.exceptions import NothingToUndoError, SessionNotFoundError, UndoConflictError
from core.governance.audit import undo_last

WORD = "undo"
NOTHING_YET = "Nothing to undo: this conversation has no saved changes yet."
NO_STORE = "This agent keeps no stored state (it has no db), so there is nothing to undo."
HELP_LINE = "• {prefix}undo — take back your own last change in this conversation"
SHADOWED = "(`undo` here is this agent's own tool, not the built-in undo.)"


def has_own_undo(tools: Mapping[str, ToolLike], aliases: Mapping[str, str]) -> bool:
    """True when the agent has a tool or alias named ``undo`` (which then wins)."""
    return resolve_tool(WORD, tools, aliases) is not None


def wants_undo(text: str, tools: Mapping[str, ToolLike], aliases: Mapping[str, str]) -> bool:
    """True when ``text`` is the built-in undo for an agent with these tools."""
    return text.strip().lower() == WORD and not has_own_undo(tools, aliases)


async def undo_reply(
    db: BaseDb,
    session_id: str,
    user_id: str,
    *,
    origin: Mapping[str, Any],
    platform: str,
    workspace: str,
) -> Reply:
    """Undo ``user_id``'s last change in ``session_id``; what happened, truthfully."""
    try:
        result = await undo_last(db, session_id, user_id, origin=dict(origin))
    except SessionNotFoundError:
        return Reply(f"{NOTHING_YET} Nothing was changed.", ephemeral=True)
    except NothingToUndoError as exc:
        return Reply(str(exc), ephemeral=True)
    except UndoConflictError as exc:
        return Reply(_conflict(exc, platform=platform, workspace=workspace), ephemeral=True)
    who = user_reference(user_id, platform=platform, workspace=workspace)
    return Reply(
        f"Undone {who}'s change v{result.undone_version}: "
        f"{result.summary or 'no visible change'} (saved as v{result.version})."
    )


def undo_turn(
    agent_id: str,
    db: BaseDb,
    keys: SessionKeys,
    *,
    platform: str,
    workspace: str,
    event_id: str,
    origin: Callable[[], Awaitable[Mapping[str, Any]]],
    offline_commands: str,
) -> Turn:
    """The turn taking back ``keys.user_id``'s last change (the one turn pipeline runs it)."""

    async def run() -> Reply:
        return await undo_reply(
            db,
            keys.session_id,
            keys.user_id,
            origin=await origin(),
            platform=platform,
            workspace=workspace,
        )

    return Turn(
        kind="undo",
        agent_id=agent_id,
        platform=platform,
        session_id=keys.session_id,
        user_id=keys.user_id,
        event_id=event_id,
        run=run,
        announce="chat_undo",
        details={"agent": agent_id},
        offline_commands=offline_commands,
    )


def _conflict(exc: UndoConflictError, *, platform: str, workspace: str) -> str:
    """Core's explanation, with the later user named the way this platform names people."""
    if not exc.later_user:
        return str(exc)
    who = user_reference(exc.later_user, platform=platform, workspace=workspace)
    return str(exc).replace(f"by {exc.later_user} ", f"by {who} ", 1)
