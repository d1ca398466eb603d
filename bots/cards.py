"""Cards: a platform-neutral, structured form of a reply (task boards, state dumps).

A :class:`Card` travels beside ``Reply.text``, which stays the plain-text fallback and
is always filled: Slack renders a card as Block Kit (``bots.slack.blocks``), Discord as
an embed (``bots.discord.embeds``), the console prints the text. An adapter that cannot
fit a card within its platform's limits sends the text instead.

Cards are built here and only here: :func:`tool_card` for the list tools of the ready
toolkits (from the state the run left, through the toolkits' pure view functions), and
:func:`state_card` for ``/state dump``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tools.shopping import tools as shopping
from tools.shopping.view import list_lines
from tools.taskboard import tools as taskboard
from tools.taskboard.view import board_groups


@dataclass(frozen=True, slots=True)
class Section:
    """A heading over lines of user or model text (``code``: shown verbatim, monospaced)."""

    heading: str
    lines: tuple[str, ...]
    code: bool = False


@dataclass(frozen=True, slots=True)
class Card:
    """A title, sections, and a footer line (may be empty)."""

    title: str
    sections: tuple[Section, ...]
    footer: str = ""


def _board(state: dict[str, Any], arguments: Mapping[str, Any]) -> Card | None:
    groups = board_groups(state, arguments.get("category"), arguments.get("status"))
    if not groups:  # empty board or unknown filter: the tool's text says it best
        return None
    count = sum(len(lines) for _, lines in groups)
    sections = tuple(Section(name.replace("_", " ").capitalize(), tuple(ls)) for name, ls in groups)
    noun = "task" if count == 1 else "tasks"
    return Card("Task board", sections, footer=f"{count} {noun}")


def _shopping(state: dict[str, Any], arguments: Mapping[str, Any]) -> Card | None:
    items = list_lines(state)
    if not items:
        return None
    noun = "item" if len(items) == 1 else "items"
    return Card("Shopping list", (Section("", tuple(items)),), footer=f"{len(items)} {noun}")


#: the tool entrypoints whose result is shown as a card, and how
_VIEWS: dict[Callable[..., Any], Callable[[dict[str, Any], Mapping[str, Any]], Card | None]] = {
    taskboard.list_tasks: _board,
    shopping.list_items: _shopping,
}


def tool_card(tool: Any, arguments: Mapping[str, Any], state: dict[str, Any]) -> Card | None:
    """The card for a direct run of ``tool`` (a core Function), or None for plain text."""
    view = _VIEWS.get(getattr(tool, "entrypoint", None))  # type: ignore[arg-type]
    return view(state, arguments) if view is not None else None


def state_card(session_id: str, dump: Mapping[str, Any], updated: str) -> Card:
    """``/state dump``: one section per top-level key, its value as indented JSON."""
    state = dump["state"]
    sections = tuple(
        Section(key, tuple(_json(state[key]).splitlines()), code=True) for key in sorted(state)
    )
    footer = f"{dump['kind']} {dump['owner_id']} · version {dump['version']} · updated {updated}"
    return Card(f"Session {session_id}", sections, footer=footer)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
