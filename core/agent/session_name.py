"""A session's name made by the model (``set_session_name(autogenerate=True)``).

As Agno does: the session's messages go to the model as one conversation, with a
system message asking for a name of at most five words; an answer that is longer is
asked for again, a few times, and then cut to five words; no answer at all gives
"New Session".
"""

from __future__ import annotations

from collections.abc import Iterable

from core.models.base import Message, Model

__all__ = ["MAX_NAME_WORDS", "generate_session_name"]

#: words a generated name may have
MAX_NAME_WORDS = 5
#: further attempts after an answer that is empty or too long
RETRIES = 3
#: characters of the conversation shown to the model (the newest kept)
PROMPT_CHARS = 8000

_ASK = (
    f"Please provide a suitable name for this conversation in maximum {MAX_NAME_WORDS} "
    f"words. Remember, do not exceed {MAX_NAME_WORDS} words."
)


def naming_messages(messages: Iterable[Message]) -> list[Message]:
    """What the model is asked: the conversation as text, then the request."""
    lines = [f"{m.role.upper()}: {m.content}" for m in messages if m.role != "system" and m.content]
    conversation = "\n".join(lines)[-PROMPT_CHARS:]
    return [
        Message("system", _ASK),
        Message("user", f"Conversation\n{conversation}\n\n\nConversation Name: "),
    ]


async def generate_session_name(model: Model, messages: Iterable[Message]) -> str:
    """A name for the conversation, at most :data:`MAX_NAME_WORDS` words."""
    prompt = naming_messages(messages)
    for attempt in range(RETRIES + 1):
        response = await model.ainvoke(prompt, [])
        words = (response.content or "").strip().strip("\"'").split()
        if words and (len(words) <= MAX_NAME_WORDS or attempt == RETRIES):
            return " ".join(words[:MAX_NAME_WORDS])
    return "New Session"
