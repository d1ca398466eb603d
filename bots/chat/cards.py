"""Cards: a platform-neutral, structured form of a reply (task boards, state dumps).

A :class:`Card` travels beside ``Reply.text``, which stays the plain-text fallback and
is always filled: Slack renders a card as Block Kit (``bots.adapters.slack.blocks``), Discord as
an embed (``bots.adapters.discord.embeds``), the console prints the text. An adapter that cannot
fit a card within its platform's limits sends the text instead.

Cards are built here and only here: :func:`tool_card` for the list tools of the ready
toolkits (from the state the run left, through the toolkits' pure view functions), and
:func:`state_card` for ``/state dump``.

A list card can carry :class:`Controls`: a button row per item (a task's start, done
and delete; a shopping item's "got it") and a form to add one. Each button names the
tool it runs and its arguments; the adapter sends them back on a click as a
:class:`Click`, which :meth:`bots.chat.service.ChatService.handle_click` runs through the
same session path as a slash command, then re-renders the card from the new state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from bots.keys import user_key
from tools.shopping import tools as shopping
from tools.shopping.view import list_lines
from tools.taskboard import tools as taskboard
from tools.taskboard.view import board_groups, board_tasks


@dataclass(frozen=True, slots=True)
class Section:
    """A heading over lines of user or model text (``code``: shown verbatim, monospaced)."""

    heading: str
    lines: tuple[str, ...]
    code: bool = False


@dataclass(frozen=True, slots=True)
class Control:
    """A button: runs ``tool`` with ``arguments`` (JSON text) on the card's session.

    ``confirm``: a question the platform asks before the click is sent (delete).
    """

    label: str
    tool: str
    arguments: str
    style: str = ""
    confirm: str = ""
    #: a one-character sign of what it does (``✓``), for platforms that label buttons
    #: compactly (``#3 ✓`` on Discord); empty: the label is used
    icon: str = ""


@dataclass(frozen=True, slots=True)
class Item:
    """One listed thing and its buttons."""

    text: str
    controls: tuple[Control, ...]
    #: how the item is named in short (``#3``); empty: its text
    short: str = ""


@dataclass(frozen=True, slots=True)
class FormField:
    """One input of an add form (a tool parameter)."""

    name: str
    label: str
    required: bool = False
    hint: str = ""


@dataclass(frozen=True, slots=True)
class Form:
    """A dialog that runs ``tool`` with what the user typed."""

    label: str
    tool: str
    fields: tuple[FormField, ...]


@dataclass(frozen=True, slots=True)
class Controls:
    """What a card's buttons act on: the agent and session, and how to redraw the card.

    ``view``: the list tool (and its arguments, JSON text) whose card is redrawn after a
    click. ``agent_id`` and ``session_id`` are filled by the service (:func:`placed`).
    """

    items: tuple[Item, ...]
    view: str
    view_arguments: str = "{}"
    form: Form | None = None
    agent_id: str = ""
    session_id: str = ""


@dataclass(frozen=True, slots=True)
class Card:
    """A title, sections, and a footer line (may be empty); ``controls`` when clickable."""

    title: str
    sections: tuple[Section, ...]
    footer: str = ""
    controls: Controls | None = None


@dataclass(frozen=True, slots=True)
class Click:
    """A button press or a submitted form: run ``tool`` on ``session_id`` for ``user``."""

    platform: str
    workspace: str
    user: str
    agent_id: str
    session_id: str
    tool: str
    arguments: dict[str, Any]
    view: str
    view_arguments: dict[str, Any]
    event_id: str = ""

    @property
    def clicker(self) -> str:
        """The user key of the person who clicked (``bots.keys``), as the run records it."""
        return user_key(self.platform, self.workspace, self.user)

    def encode(self) -> str:
        """What a button carries (the clicker is added when it comes back)."""
        return encode_action(
            self.agent_id,
            self.session_id,
            self.tool,
            self.arguments,
            self.view,
            self.view_arguments,
        )


def encode_action(
    agent_id: str,
    session_id: str,
    tool: str,
    arguments: Mapping[str, Any],
    view: str,
    view_arguments: Mapping[str, Any],
) -> str:
    """The compact JSON a button carries: everything a click needs, in any process."""
    return json.dumps(
        [agent_id, session_id, tool, dict(arguments), view, dict(view_arguments)],
        separators=(",", ":"),
        ensure_ascii=False,
    )


def decode_action(
    value: str, *, platform: str, workspace: str, user: str, event_id: str = ""
) -> Click | None:
    """The Click a button's value describes; None for anything that is not one."""
    try:
        agent_id, session_id, tool, arguments, view, view_arguments = json.loads(value)
    except (ValueError, TypeError):
        return None
    if not all(isinstance(x, str) for x in (agent_id, session_id, tool, view)):
        return None
    if not isinstance(arguments, dict) or not isinstance(view_arguments, dict):
        return None
    return Click(
        platform,
        workspace,
        user,
        agent_id,
        session_id,
        tool,
        arguments,
        view,
        view_arguments,
        event_id,
    )


def button_value(controls: Controls, control: Control) -> str:
    """The value of one button of a placed card."""
    return encode_action(
        controls.agent_id,
        controls.session_id,
        control.tool,
        json.loads(control.arguments),
        controls.view,
        json.loads(controls.view_arguments),
    )


def placed(card: Card | None, agent_id: str, session_id: str) -> Card | None:
    """``card`` with its controls pointed at ``agent_id``'s session ``session_id``."""
    if card is None or card.controls is None:
        return card
    controls = replace(card.controls, agent_id=agent_id, session_id=session_id)
    return replace(card, controls=controls)


def _args(**arguments: Any) -> str:
    return json.dumps(arguments, separators=(",", ":"), sort_keys=True)


_TASK_FORM = Form(
    "Add task",
    "add_task",
    (
        FormField("title", "Title", required=True),
        FormField("category", "Category", hint="general, work, personal"),
        FormField("due", "Due", hint="friday 5pm, in 2 hours, 2026-12-01"),
    ),
)


#: what an empty board shows instead of tasks
NO_TASKS = "No tasks"

_SHOPPING_FORM = Form("Add item", "add_item", (FormField("item", "Item", required=True),))


def _task_item(task: Mapping[str, Any]) -> Item:
    task_id = task.get("id")
    status = str(task.get("status"))
    buttons = []
    if status == "open":
        start = _args(task_id=task_id, status="in_progress")
        buttons.append(Control("Start", "update_task_status", start, icon="▶"))
    if status != "done":
        done = _args(task_id=task_id, status="done")
        buttons.append(Control("Done", "update_task_status", done, "primary", icon="✓"))
    buttons.append(
        Control(
            "Delete",
            "remove_task",
            _args(task_id=task_id),
            "danger",
            confirm=f"Delete task #{task_id} ({task.get('title')}) for good?",
            icon="✕",
        )
    )
    text = f"#{task_id} {task.get('title')} ({task.get('category')}) · {status.replace('_', ' ')}"
    return Item(text, tuple(buttons), short=f"#{task_id}")


def _board(state: dict[str, Any], arguments: Mapping[str, Any]) -> Card | None:
    groups = board_groups(state, arguments.get("category"), arguments.get("status"))
    if groups is None:  # an unknown filter: the tool's text says which choices exist
        return None
    count = sum(len(lines) for _, lines in groups)
    sections = tuple(Section(name.replace("_", " ").capitalize(), tuple(ls)) for name, ls in groups)
    noun = "task" if count == 1 else "tasks"
    shown = board_tasks(state, arguments.get("category"), arguments.get("status")) or []
    controls = Controls(
        tuple(_task_item(t) for t in shown),
        view="list_tasks",
        view_arguments=_args(**{k: v for k, v in arguments.items() if v}),
        form=_TASK_FORM,
    )
    # an emptied board is still a board: it is redrawn (no stale task left on screen)
    # and keeps its add button
    footer = f"{count} {noun}" if count else NO_TASKS
    return Card("Task board", sections, footer=footer, controls=controls)


def _shopping(state: dict[str, Any], arguments: Mapping[str, Any]) -> Card | None:
    items = list_lines(state)
    if not items:
        return None
    noun = "item" if len(items) == 1 else "items"
    controls = Controls(
        tuple(
            Item(i, (Control("Got it", "remove_item", _args(item=i), "primary", icon="✓"),))
            for i in items
        ),
        view="list_items",
        form=_SHOPPING_FORM,
    )
    return Card(
        "Shopping list",
        (Section("", tuple(items)),),
        footer=f"{len(items)} {noun}",
        controls=controls,
    )


#: the tool entrypoints whose result is shown as a card, and how
_VIEWS: dict[Callable[..., Any], Callable[[dict[str, Any], Mapping[str, Any]], Card | None]] = {
    taskboard.list_tasks: _board,
    shopping.list_items: _shopping,
}


#: how each list tool's toolkit says a click found its item gone (a stale card)
_GONE: dict[Callable[..., Any], Callable[[str], bool]] = {
    taskboard.list_tasks: taskboard.is_no_such_task,
    shopping.list_items: shopping.is_not_listed,
}


def tool_card(tool: Any, arguments: Mapping[str, Any], state: dict[str, Any]) -> Card | None:
    """The card for a direct run of ``tool`` (a core Function), or None for plain text."""
    view = _VIEWS.get(getattr(tool, "entrypoint", None))  # type: ignore[arg-type]
    return view(state, arguments) if view is not None else None


#: the add form each list tool's card offers
_FORMS: dict[Callable[..., Any], Form] = {
    taskboard.list_tasks: _TASK_FORM,
    shopping.list_items: _SHOPPING_FORM,
}


def form_for(view_tool: Any) -> Form | None:
    """The add form of ``view_tool``'s card (a core Function), or None."""
    return _FORMS.get(getattr(view_tool, "entrypoint", None))  # type: ignore[arg-type]


def stale(view_tool: Any, reply: str) -> bool:
    """True when ``reply`` (of a click on ``view_tool``'s card) says the item is gone."""
    gone = _GONE.get(getattr(view_tool, "entrypoint", None))  # type: ignore[arg-type]
    return gone is not None and gone(reply)


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
