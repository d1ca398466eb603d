"""Discord board layout: within Discord's limits, items whole, nothing lost silently."""

from __future__ import annotations

import itertools

import pytest

from bots.adapters.discord.layout import MAX_ROWS, MENU_OPTIONS, ROW_BUTTONS, lay_out


@pytest.mark.parametrize("count", [0, 1, 4, 5, 9, 22, 60])
@pytest.mark.parametrize("pattern", [(3,), (1,), (2, 3, 1), (3, 3, 1, 2)])
def test_every_item_is_a_button_a_menu_option_or_counted(
    count: int, pattern: tuple[int, ...]
) -> None:
    """Rows hold at most 5 buttons, 5 rows in all, the menu 25 options; each item once."""
    sizes = list(itertools.islice(itertools.cycle(pattern), count))
    layout = lay_out(sizes, add_button=True)
    rows = [sum(sizes[i] for i in row) for row in layout.rows]
    if layout.add_row is not None and layout.add_row >= len(rows):
        rows.append(0)
    if layout.add_row is not None:
        rows[layout.add_row] += 1
    assert all(n <= ROW_BUTTONS for n in rows)
    assert len(rows) + (1 if layout.menu else 0) <= MAX_ROWS
    assert sum(sizes[i] for i in layout.menu) <= MENU_OPTIONS
    shown = [i for row in layout.rows for i in row] + list(layout.menu)
    assert shown == list(range(len(shown)))  # in order, each once
    assert len(shown) + layout.hidden == count
    assert layout.add_row is not None
    assert layout.menu_row is None or layout.menu_row == len(rows)


def test_a_small_board_needs_no_menu() -> None:
    """Two open tasks: one row each, the add button beside the second."""
    layout = lay_out([3, 3], add_button=True)
    assert layout.rows == ((0,), (1,)) and layout.add_row == 1 and not layout.menu
