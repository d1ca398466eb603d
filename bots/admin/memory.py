"""``/memory``: what the bot remembers about you, and forgetting one (docs/memory.md).

    /memory                 what is remembered about you, numbered
    /memory forget N        forget number N of that list (or a memory id)
    /memory @user           an admin: what is remembered about that user

The memories are the user memories of every store the agents use (written by the
automatic memory pass, ``enable_user_memories``, and by the agentic memory tools),
oldest first, numbered across stores in that order. Anyone sees and forgets their own;
listing someone else's is an admin's, within their grant's scope
(``bots.admin.policy``), and logged. Every reply is ephemeral.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from bots.admin import actions as admin
from bots.admin.policy import AdminPolicy
from bots.chat.replies import Reply
from bots.inbound import SlashCommand
from bots.keys import user_key
from bots.platforms import traits_for
from core.db.base import BaseDb
from core.db.records import UserMemory

__all__ = ["USAGE", "memory_command"]

log = structlog.get_logger("bots.memory")

USAGE = "Usage: `/memory`, `/memory forget N`, or (admins) `/memory @user`."
#: listed at most; the rest is counted
SHOWN = 50


async def memory_command(cmd: SlashCommand, stores: Sequence[BaseDb], policy: AdminPolicy) -> Reply:
    """Answer one ``/memory`` command."""
    actor = cmd.keys.user_id
    words = cmd.text.split()
    if not stores:
        return Reply("No agent here keeps a store, so nothing is remembered.", ephemeral=True)
    if not words:
        return Reply(_listing(await _memories(stores, actor), whose="you"), ephemeral=True)
    if words[0].lower() == "forget" and len(words) == 2:
        return Reply(await _forget(stores, actor, words[1]), ephemeral=True)
    if len(words) == 1:
        traits = traits_for(cmd.platform)
        pattern = traits.user_mention if traits is not None else None
        mention = pattern.fullmatch(words[0]) if pattern is not None else None
        if mention is not None:
            target = user_key(cmd.platform, cmd.workspace, mention.group("id"))
            grant = policy.grant(cmd.platform, cmd.workspace, cmd.user, team=cmd.team)
            if grant is None:
                return admin.refuse("memory", user_id=actor, cmd=cmd)
            refused = admin.out_of_scope(grant, target, action="memory", user_id=actor)
            if refused is not None:
                return refused
            log.info("admin_command", action="memory", target_user=target, actor=actor)
            listed = _listing(await _memories(stores, target), whose=target)
            return Reply(listed, ephemeral=True)
    return Reply(USAGE, ephemeral=True)


async def _memories(stores: Sequence[BaseDb], user_id: str) -> list[tuple[BaseDb, UserMemory]]:
    found: list[tuple[BaseDb, UserMemory]] = []
    for db in stores:
        found += [(db, m) for m in await db.aget_memories(user_id)]
    return found


def _listing(memories: list[tuple[BaseDb, UserMemory]], *, whose: str) -> str:
    if not memories:
        return f"Nothing is remembered about {whose}."
    lines = [f"What is remembered about {whose} ({len(memories)}):"]
    lines += [f"{n}. {m.memory}" for n, (_db, m) in enumerate(memories[:SHOWN], start=1)]
    if len(memories) > SHOWN:
        lines.append(f"… and {len(memories) - SHOWN} more.")
    if whose == "you":
        lines.append("`/memory forget N` forgets one.")
    return "\n".join(lines)


async def _forget(stores: Sequence[BaseDb], user_id: str, which: str) -> str:
    memories = await _memories(stores, user_id)
    chosen = None
    if which.isdigit() and 1 <= int(which) <= len(memories):
        chosen = memories[int(which) - 1]
    else:
        chosen = next((pair for pair in memories if pair[1].memory_id == which), None)
    if chosen is None:
        count = len(memories)
        return f"No memory {which!r}: there are {count} (see `/memory`). Nothing was forgotten."
    db, memory = chosen
    if not await db.adelete_memory(user_id, memory.memory_id):
        return f"That memory was already gone: {memory.memory!r}."
    log.info("memory_forgotten", user_id=user_id, memory_id=memory.memory_id)
    return f"Forgotten: {memory.memory}"
