"""User memory: facts about a user that outlive any one session.

Stored through the agent's db (``aget_memories`` / ``aadd_memory`` /
``adelete_memory``), keyed by ``user_id``. With ``enable_agentic_memory=True`` an
agent gets these three tools; ``add_memories_to_context=True`` lists what is known
about the current user in the system message.
"""

from __future__ import annotations

import uuid

from core.db.base import BaseDb
from core.db.records import UserMemory
from core.run.context import RunContext
from core.tools.function import Function


def memory_functions(db: BaseDb) -> list[Function]:
    """The remember / recall / forget tools, bound to one store."""

    async def remember_user_fact(
        run_context: RunContext, fact: str, topics: list[str] | None = None
    ) -> str:
        """Remember a lasting fact about the current user (preferences, role, ...).

        Args:
            fact: The fact, as one short sentence.
            topics: Optional topic labels.
        """
        if not run_context.user_id:
            return "Error: there is no user to remember facts about in this run."
        memory = UserMemory(
            memory_id=uuid.uuid4().hex[:12],
            user_id=run_context.user_id,
            memory=fact.strip(),
            topics=tuple(topics or ()),
        )
        await db.aadd_memory(memory)
        return f"Remembered (id {memory.memory_id}): {memory.memory}"

    async def recall_user_facts(run_context: RunContext) -> str:
        """List every fact remembered about the current user."""
        if not run_context.user_id:
            return "There is no user in this run."
        memories = await db.aget_memories(run_context.user_id)
        if not memories:
            return "Nothing is remembered about this user yet."
        return "\n".join(f"- [{m.memory_id}] {m.memory}" for m in memories)

    async def forget_user_fact(run_context: RunContext, memory_id: str) -> str:
        """Forget one remembered fact about the current user.

        Args:
            memory_id: The id shown by recall_user_facts.
        """
        if not run_context.user_id:
            return "There is no user in this run."
        if await db.adelete_memory(run_context.user_id, memory_id):
            return f"Forgot {memory_id}."
        return f"Error: no remembered fact with id {memory_id!r}."

    return [Function(remember_user_fact), Function(recall_user_facts), Function(forget_user_fact)]
