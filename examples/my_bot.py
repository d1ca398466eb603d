"""A one-file bot with its own agent: a team's shared notes.

Run it in the terminal, or on Slack / Discord (tokens in the environment or .env):

    .venv/bin/python examples/my_bot.py                 # console
    .venv/bin/python examples/my_bot.py slack           # or: discord
    .venv/bin/statebot console --app examples.my_bot:agents

``/add_note "Ship on Friday"`` and ``/list_notes`` work without a model; with
OPENAI_API_KEY (or OPENAI_BASE_URL) set, free text goes to the model, which calls
the same tools.
"""

from __future__ import annotations

import sys
from typing import Any

from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.models.openai import OpenAIChat


def add_note(session_state: dict[str, Any], text: str) -> str:
    """Add a note to this conversation's notes.

    Args:
        text: The note, e.g. "Ship on Friday".
    """
    clean = " ".join(text.split())
    if not clean:
        return "A note needs some text. Nothing was changed."
    notes = session_state.setdefault("notes", [])
    notes.append(clean)
    return f"Noted ({len(notes)}): {clean}"


def list_notes(session_state: dict[str, Any]) -> str:
    """List this conversation's notes."""
    notes = session_state.get("notes") or []
    if not notes:
        return "No notes yet."
    return "\n".join(f"{number}. {note}" for number, note in enumerate(notes, 1))


def create_agent(db_file: str = "my_bot.db") -> Agent:
    """The notes agent; its state lives in ``db_file`` and survives restarts."""
    return Agent(
        name="notes",
        model=OpenAIChat(id="gpt-4o-mini"),
        db=SqliteDb(db_file=db_file),
        tools=[add_note, list_notes],
        session_state={"notes": []},
        instructions="You keep the team's notes. Current notes: {notes}",
    )


def agents() -> dict[str, Agent]:
    """What ``--app examples.my_bot:agents`` serves: one agent, by name."""
    return {"notes": create_agent()}


if __name__ == "__main__":
    from bots import serve

    platform = sys.argv[1] if len(sys.argv) > 1 else "console"
    if platform not in ("console", "slack", "discord"):
        sys.exit(f"usage: {sys.argv[0]} [console|slack|discord]")
    serve(create_agent(), platform=platform)  # type: ignore[arg-type]  # checked just above
