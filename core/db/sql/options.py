"""Agno's store arguments that this project's SQL stores do not take, refused clearly.

Agno's ``SqliteDb`` / ``PostgresDb`` (and their async twins) take a table name per
feature (``memory_table``, ``eval_table``, ``knowledge_table``, …) and a ready
``db_engine``. Here the tables are named after ``session_table`` (sessions, history,
memories, leases, schedules: one set per name, migrated together), and each store
builds its own engine (SQLite's writer with a busy timeout, PostgreSQL's pre-pinged
pool), so those arguments cannot be honoured; accepting and ignoring them would hide
that. A store given one raises TypeError naming it and saying what to pass instead.
"""

from __future__ import annotations

from collections.abc import Mapping

_WHY = {
    "db_engine": "the store builds its own engine; pass db_url (or db_file) instead",
}
_TABLES = (
    "the tables are named after session_table (sessions, history, memories, ...); "
    "pass session_table only"
)


def refuse_unsupported(store: str, given: Mapping[str, object]) -> None:
    """Raise TypeError for each argument in ``given`` that ``store`` does not take."""
    if not given:
        return
    name = sorted(given)[0]
    why = _WHY.get(name, _TABLES if name.endswith("_table") else "not an argument of this store")
    raise TypeError(f"{store} does not take {name}=: {why}")
