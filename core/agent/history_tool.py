"""``read_chat_history=True``: the ``get_chat_history`` tool (Agno's name and argument)."""

from __future__ import annotations

import json

from core.db.base import BaseDb
from core.run.context import RunContext
from core.run.history import SessionData
from core.tools.function import Function


def chat_history_function(db: BaseDb) -> Function:
    """A tool returning the earlier turns of the current session, bound to one store."""

    async def get_chat_history(run_context: RunContext, num_chats: int | None = None) -> str:
        """Read the earlier messages of this conversation, oldest first.

        Args:
            num_chats: Only the last this many question-and-answer pairs (default: all).
        """
        record = await db.aload(run_context.session_id)
        data = SessionData.decode(record.data if record is not None else "")
        messages = [
            {
                "role": m.role,
                "content": m.content,
                **({"user_id": r.user_id} if m.role == "user" else {}),
            }
            for r in data.completed(num_chats)
            for m in r.messages()
        ]
        return json.dumps(messages, ensure_ascii=False)

    return Function(get_chat_history)
