"""The board as plain data for chat cards: tasks grouped by status, nothing rendered.

``bots.cards`` turns this into a platform-neutral card; this module only decides what
a board shows (tasks grouped by status, in board order), so it stays free of ``bots``.
"""

from __future__ import annotations

from typing import Any

from tools.taskboard.tools import STATUSES, _match, _match_status, categories_of, tasks_of


def board_groups(
    session_state: dict[str, Any], category: str | None = None, status: str | None = None
) -> list[tuple[str, list[str]]] | None:
    """``[(status, ["#1 title (category)", …]), …]`` for non-empty statuses.

    Filters work as in ``list_tasks``; None when a filter names no category or status
    (``list_tasks``'s text then says which choices exist).
    """
    wanted_category = _match(category, categories_of(session_state)) if category else None
    wanted_status = _match_status(status) if status else None
    if (category and wanted_category is None) or (status and wanted_status is None):
        return None
    groups: list[tuple[str, list[str]]] = []
    for name in STATUSES:
        if wanted_status not in (None, name):
            continue
        lines = [
            f"#{t.get('id')} {t.get('title')} ({t.get('category')})"
            for t in tasks_of(session_state)
            if t.get("status") == name and wanted_category in (None, t.get("category"))
        ]
        if lines:
            groups.append((name, lines))
    return groups


def board_tasks(
    session_state: dict[str, Any], category: str | None = None, status: str | None = None
) -> list[dict[str, Any]] | None:
    """The tasks a board shows, grouped by status in board order (None: unknown filter)."""
    groups = board_groups(session_state, category, status)
    if groups is None:
        return None
    wanted_category = _match(category, categories_of(session_state)) if category else None
    shown_statuses = [name for name, _ in groups]
    return [
        t
        for name in shown_statuses
        for t in tasks_of(session_state)
        if t.get("status") == name and wanted_category in (None, t.get("category"))
    ]
