"""Automatic user memories (Agno's ``MemoryManager``, ``enable_user_memories=True``).

After a completed run that has a user, the manager sends a model the user's message
and the memories already kept about that user, with three tools: ``add_memory``,
``update_memory`` and ``delete_memory``. The model decides, as in Agno, whether
anything lasting was said (name, role, preferences, goals ...) and the calls it makes
are applied to the store's user memories (``aget_memories`` / ``aadd_memory`` /
``adelete_memory``): the same records the agentic tools (``core.memory.tools``),
``/memory`` in chat, the web console, export and erasure see.

Differences from Agno, on purpose:

* **Bounded per user**: at most ``max_memories`` (50) are kept; adding past it drops
  the oldest, logged. Each memory is cut to ``max_memory_chars`` (500).
* One model turn: the tool calls are applied and the model is not called again
  (Agno's loop would ask it to comment on its own calls, an answer nobody reads).
* A failure (the model, the store) is logged and the run's answer stands; the call's
  tokens count in the run's metrics, so budgets see them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from core.db.base import BaseDb
from core.db.records import UserMemory
from core.models.base import Message, Model, ToolCall, Usage
from core.run.output import RunOutput, RunStatus
from core.utils.log import log_warning

__all__ = ["MemoryManager", "MemoryUpdate", "remember_run", "user_memory_manager"]

CAPTURE = (
    "Memories capture lasting information about the user that will matter in later "
    "conversations: personal facts (name, role, team, location), preferences and "
    "dislikes, goals and ongoing work, and anything they ask you to remember."
)
PROMPT = (
    "You manage what an assistant remembers about one user. Read the user's message "
    "and the existing memories. If the message holds something that belongs in memory "
    "and is not kept yet, call add_memory with one short third-person sentence per "
    "fact ('The user prefers tea'). If it changes a kept memory, call update_memory; if "
    "the user asks to forget something or it is no longer true, call delete_memory. "
    "If nothing lasting was said, call no tool. Never store secrets such as passwords "
    "or tokens."
)


@dataclass
class MemoryUpdate:
    """What one pass changed: memory ids added, updated, deleted; the call's usage."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


@dataclass
class MemoryManager:
    """How user memories are written: ``MemoryManager(model=..., max_memories=50)``.

    ``model``: the manager's (None: the agent's); ``db``: the store (None: the agent's);
    ``system_message`` replaces the whole prompt, ``memory_capture_instructions`` what
    is worth remembering, ``additional_instructions`` is appended.
    """

    model: Model | None = None
    db: BaseDb | None = None
    system_message: str | None = None
    memory_capture_instructions: str | None = None
    additional_instructions: str | None = None
    add_memories: bool = True
    update_memories: bool = True
    delete_memories: bool = True
    max_memories: int = 50
    max_memory_chars: int = 500

    def __post_init__(self) -> None:
        for name in ("max_memories", "max_memory_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"{name} must be a whole number > 0, not {value!r}")

    async def aget_user_memories(self, user_id: str) -> list[UserMemory]:
        """The memories kept about ``user_id``, oldest first."""
        return await self._db().aget_memories(user_id)

    def prompt(self, existing: list[UserMemory]) -> str:
        """The system message the model is given."""
        if self.system_message is not None:
            return self.system_message
        parts = [PROMPT, f"<memories_to_capture>\n{self.memory_capture_instructions or CAPTURE}"]
        parts[-1] += "\n</memories_to_capture>"
        listed = "\n".join(f"ID: {m.memory_id}\nMemory: {m.memory}" for m in existing)
        parts.append(f"<existing_memories>\n{listed or '(none)'}\n</existing_memories>")
        if self.additional_instructions:
            parts.append(self.additional_instructions)
        return "\n\n".join(parts)

    def tools(self) -> list[dict[str, Any]]:
        """The Chat Completions tools offered (those enabled)."""
        text = {"type": "string", "description": "One short third-person sentence."}
        ident = {"type": "string", "description": "The ID of an existing memory."}
        specs = []
        if self.add_memories:
            specs.append(_tool("add_memory", "Remember a new fact.", memory=text))
        if self.update_memories:
            specs.append(
                _tool("update_memory", "Replace a kept memory.", memory_id=ident, memory=text)
            )
        if self.delete_memories:
            specs.append(_tool("delete_memory", "Forget a kept memory.", memory_id=ident))
        return specs

    async def acreate_user_memories(
        self, message: str, user_id: str, *, model: Model | None = None
    ) -> MemoryUpdate:
        """Let the model add, update or delete ``user_id``'s memories after ``message``."""
        model = model or self.model
        if model is None:
            raise ValueError("user memories need a model: pass model=... to the manager")
        db = self._db()
        existing = await db.aget_memories(user_id)
        messages = [Message("system", self.prompt(existing)), Message("user", message)]
        response = await model.ainvoke(messages, self.tools())
        update = MemoryUpdate(usage=response.usage)
        known = {m.memory_id: m for m in existing}
        for call in response.tool_calls:
            await self._apply(db, user_id, call, known, update)
        await self._bound(db, user_id, update)
        return update

    async def _apply(
        self,
        db: BaseDb,
        user_id: str,
        call: ToolCall,
        known: dict[str, UserMemory],
        update: MemoryUpdate,
    ) -> None:
        try:
            args = json.loads(call.arguments or "{}")
        except ValueError:
            log_warning("memory call ignored: arguments are not JSON", tool=call.name)
            return
        text = str(args.get("memory") or "").strip()[: self.max_memory_chars]
        memory_id = str(args.get("memory_id") or "")
        if call.name == "add_memory" and self.add_memories and text:
            memory = UserMemory(uuid.uuid4().hex[:12], user_id, text)
            await db.aadd_memory(memory)
            update.added.append(memory.memory_id)
        elif call.name == "update_memory" and self.update_memories and text and memory_id in known:
            old = known[memory_id]
            await db.aadd_memory(UserMemory(memory_id, user_id, text, old.topics, old.created_at))
            update.updated.append(memory_id)
        elif call.name == "delete_memory" and self.delete_memories and memory_id in known:
            if await db.adelete_memory(user_id, memory_id):
                update.deleted.append(memory_id)
        else:
            log_warning("memory call ignored", tool=call.name, memory_id=memory_id or None)

    async def _bound(self, db: BaseDb, user_id: str, update: MemoryUpdate) -> None:
        """Keep at most ``max_memories``: the oldest go first."""
        memories = await db.aget_memories(user_id)
        for old in memories[: max(0, len(memories) - self.max_memories)]:
            if await db.adelete_memory(user_id, old.memory_id):
                log_warning("memory dropped: the user's limit was reached", memory_id=old.memory_id)
                update.deleted.append(old.memory_id)

    def _db(self) -> BaseDb:
        if self.db is None:
            raise ValueError("user memories need a store: give the agent (or manager) a db")
        return self.db


def _tool(name: str, description: str, **properties: dict[str, str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": sorted(properties)}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


def user_memory_manager(
    enable: bool, manager: MemoryManager | None, db: BaseDb | None
) -> MemoryManager | None:
    """The manager an agent's runs update user memories with (None: they do not).

    As in Agno, ``enable_user_memories=True`` (or ``update_memory_on_run=True``) turns
    it on; a manager without a store uses the agent's (a copy: the caller's is kept).
    """
    if not enable:
        return None
    manager = manager or MemoryManager()
    if manager.db is None:
        if db is None:
            raise ValueError("enable_user_memories needs a store: give the agent a db")
        manager = dataclasses.replace(manager, db=db)
    return manager


async def remember_run(
    manager: MemoryManager,
    model: Model | None,
    *,
    user_id: str | None,
    text: str,
    output: RunOutput,
    deadline: float | None,
) -> None:
    """After a completed run with a user: update that user's memories from ``text``.

    Bounded by half the time left before the run's deadline (the rest is the save's);
    a failure is logged and the run's answer stands. The call's tokens count in the
    run's metrics.
    """
    if not user_id or not text.strip() or RunStatus(output.status) is not RunStatus.completed:
        return
    left = None if deadline is None else (deadline - time.monotonic()) / 2
    try:
        async with asyncio.timeout(left):
            update = await manager.acreate_user_memories(
                text, user_id, model=manager.model or model
            )
    except Exception as exc:
        log_warning("user memories not updated", error=str(exc) or type(exc).__name__)
        return
    output.metrics.model_calls += 1
    output.metrics.input_tokens += update.usage.input_tokens
    output.metrics.output_tokens += update.usage.output_tokens
