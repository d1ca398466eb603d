"""The SQL stores' rekey pass (``core/governance/rekey.py``): sessions, then history rows.

Rows are read in pages in key order (keyset, never ``OFFSET``) and rewritten one
session (or one history row) per transaction, each guarded by what was read: the
session's version and save id, the history row's old text. Only rows that hold a text
not sealed under the newest key are written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.db import codec, data_log
from core.db.cipher import StateCipher
from core.db.maintenance import RekeyCounts
from core.exceptions import DamagedDataError, StateDecryptError

if TYPE_CHECKING:
    from core.db.sql.store import SqlDb

_PAGE = 200


def renewed_texts(cipher: StateCipher, session_id: str, texts: Mapping[str, str]) -> dict[str, str]:
    """The texts of ``texts`` sealed again (only those not under the newest key)."""
    out: dict[str, str] = {}
    for key, text in texts.items():
        new = cipher.renewed(text, session_id, key)
        if new is not None:
            out[key] = new
    return out


async def rekey_sql(db: SqlDb, *, lock: bool) -> RekeyCounts:
    """Rewrite ``db``'s sessions and history under the newest key.

    ``lock``: take each session's lease (a store that runs use directly); behind
    Redis the version guard suffices (only snapshots write there).
    """
    assert db.cipher is not None
    counts = RekeyCounts(store=repr(db))
    after = ""
    while True:
        page = await db._run(_session_page, db, after)
        if not page:
            break
        after = page[-1].session_id
        for row in page:
            counts.sessions += 1
            if not _needs(db.cipher, row):
                continue
            try:
                held = db.session_lock(row.session_id) if lock else contextlib.nullcontext()
                async with held:
                    outcome = await db._run(_rewrite_session, db, row.session_id)
            except (StateDecryptError, DamagedDataError) as exc:
                counts.failed.append(str(exc))
                continue
            if outcome is None:
                counts.moved += 1
            else:
                counts.rewritten += 1
                counts.values += outcome[0]
                counts.data += outcome[1]
    await _rekey_history(db, counts)
    return counts


def _needs(cipher: StateCipher, row: Any) -> bool:
    # the state column is an object of key texts: any text not under the newest key
    # makes a member whose value does not start with the current prefix
    texts = codec.split_object(row.state)
    return any(not cipher.is_current(t) for t in texts.values()) or not _data_current(
        cipher, row.data + row.data_tail
    )


def _data_current(cipher: StateCipher, raw: str) -> bool:
    """Whether the stored data (a whole text, or a log's lines) is all under the newest key."""
    if not data_log.is_log(raw):
        return not raw or cipher.is_current(raw)
    return all(
        line[:1] in (data_log.DROP_RUNS, data_log.DROP_AUDIT) or cipher.is_current(line[1:])
        for line in raw.split("\n")
    )


def _session_page(db: SqlDb, after: str) -> list[Any]:
    s = db._tables.sessions
    query = (
        sa.select(s.c.session_id, s.c.state, s.c.data, s.c.data_tail)
        .where(s.c.session_id > after)
        .order_by(s.c.session_id)
        .limit(_PAGE)
    )
    with db._engine.connect() as conn:
        return list(conn.execute(query))


def _rewrite_session(db: SqlDb, session_id: str) -> tuple[int, int] | None:
    """(values, data) sealed again; None when the row changed under the guard."""
    assert db.cipher is not None
    s = db._tables.sessions
    with db._writer.begin() as conn:
        row = conn.execute(
            sa.select(s.c.version, s.c.save_id, s.c.state, s.c.data, s.c.data_tail).where(
                s.c.session_id == session_id
            )
        ).first()
        if row is None:
            return None
        texts = codec.split_object(row.state)
        renewed = renewed_texts(db.cipher, session_id, texts)
        # a log comes back compacted, its appended lines in it
        data = data_log.renewed(row.data + row.data_tail, session_id, db.cipher)
        if not renewed and data is None:
            return 0, 0
        values: dict[str, Any] = {"state": codec.object_text({**texts, **renewed})}
        if data is not None:
            values |= {"data": data, "data_tail": ""}
        result = conn.execute(
            sa.update(s)
            .where(
                s.c.session_id == session_id,
                s.c.version == row.version,
                s.c.save_id == row.save_id,
            )
            .values(**values)
        )
        if result.rowcount != 1:
            return None
    return len(renewed), int(data is not None)


async def _rekey_history(db: SqlDb, counts: RekeyCounts) -> None:
    after: tuple[str, int] = ("", -1)
    while True:
        done, after_next = await db._run(_history_page, db, after, counts)
        if not done:
            break
        after = after_next


def _history_page(
    db: SqlDb, after: tuple[str, int], counts: RekeyCounts
) -> tuple[int, tuple[str, int]]:
    """Rewrite one page of history rows; (rows read, where the next page starts)."""
    assert db.cipher is not None
    h = db._tables.history
    sid, version = after
    query = (
        sa.select(h.c.session_id, h.c.version, h.c.state)
        .where(sa.or_(h.c.session_id > sid, sa.and_(h.c.session_id == sid, h.c.version > version)))
        .order_by(h.c.session_id, h.c.version)
        .limit(_PAGE)
    )
    with db._engine.connect() as conn:
        rows = list(conn.execute(query))
    for row in rows:
        texts = codec.split_object(row.state)
        try:
            renewed = renewed_texts(db.cipher, row.session_id, texts)
        except StateDecryptError as exc:
            counts.failed.append(f"{exc} (history version {row.version})")
            continue
        if not renewed:
            continue
        with db._writer.begin() as conn:
            result = conn.execute(
                sa.update(h)
                .where(h.c.session_id == row.session_id, h.c.version == row.version)
                .where(h.c.state == row.state)
                .values(state=codec.object_text({**texts, **renewed}))
            )
        if result.rowcount == 1:
            counts.history += 1
    if not rows:
        return 0, after
    return len(rows), (rows[-1].session_id, rows[-1].version)
