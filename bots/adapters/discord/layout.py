"""Where a card's controls go on Discord: rows of short buttons, then a menu for the rest.

Discord takes at most 5 action rows per message, each holding up to 5 buttons or one
select menu of up to 25 options. An item's buttons stay together in one row (``#3 ▶
#3 ✓ #3 ✕``), several items share a row when they fit, and the add button takes the
first free place after them. When not every item fits, one row becomes a select menu
holding the other items' actions (``#9 ✓ Done``), so every item stays reachable up to
the menu's 25 options; items past that are counted in ``hidden``.

Pure: sizes in, positions out; ``bots.adapters.discord.board`` builds the components.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_ROWS = 5
ROW_BUTTONS = 5
MENU_OPTIONS = 25


@dataclass(frozen=True, slots=True)
class Layout:
    """Item indexes per button row, the add button's row, and what the menu holds."""

    rows: tuple[tuple[int, ...], ...]
    add_row: int | None = None
    menu: tuple[int, ...] = ()
    menu_row: int | None = None
    #: items neither a button nor a menu option reaches (past the menu's 25 options)
    hidden: int = 0


def _pack(sizes: Sequence[int], rows: int, add_button: bool) -> tuple[list[list[int]], int | None]:
    """Items in order, whole, into at most ``rows`` rows, leaving room for the add button."""
    for count in range(len(sizes), -1, -1):
        placed: list[list[int]] = []
        used = ROW_BUTTONS  # forces a new row for the first item
        fits = True
        for index in range(count):
            size = sizes[index]
            if size > ROW_BUTTONS:
                fits = False
                break
            if used + size > ROW_BUTTONS:
                placed.append([])
                used = 0
            placed[-1].append(index)
            used += size
        if not fits or len(placed) > rows:
            continue
        if not add_button:
            return placed, None
        if placed and used < ROW_BUTTONS:
            return placed, len(placed) - 1
        if len(placed) < rows:
            return placed, len(placed)
    return [], 0 if add_button and rows else None


def lay_out(sizes: Sequence[int], *, add_button: bool) -> Layout:
    """Where each item's buttons go (``sizes``: buttons per item) and what the menu holds."""
    placed, add_row = _pack(sizes, MAX_ROWS, add_button)
    if sum(len(row) for row in placed) == len(sizes):
        return Layout(tuple(tuple(row) for row in placed), add_row)
    placed, add_row = _pack(sizes, MAX_ROWS - 1, add_button)  # one row for the menu
    rest = range(sum(len(row) for row in placed), len(sizes))
    menu: list[int] = []
    options = 0
    for index in rest:
        if options + sizes[index] > MENU_OPTIONS:
            break
        menu.append(index)
        options += sizes[index]
    rows_used = max(len(placed), (add_row + 1) if add_row is not None else 0)
    return Layout(
        tuple(tuple(row) for row in placed),
        add_row,
        tuple(menu),
        rows_used,
        hidden=len(rest) - len(menu),
    )
