"""Every admin entry point refuses an id no store can hold (NUL, over 1,024 bytes, a
lone surrogate) with InvalidIdError and one line, before any store sees it, on every
store; ``statebot state`` answers it with that line and exit 2, the web console with a
400 page."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from bots.cli.main import main
from bots.web import create_app
from core.agent import Agent
from core.db.base import BaseDb
from core.db.codec import encode_delta
from core.db.records import SessionMeta
from core.db.sqlite import SqliteDb
from core.exceptions import InvalidIdError
from core.governance import audit, erasure, sessions, user_export
from core.governance.budgets.report import usage_report
from core.governance.save import load_session
from core.testing import ScriptedModel
from tests.bots.web.test_http import config_for, signed_in_client
from tests.db.conftest import backend, store

__all__ = ["backend", "store"]  # the fixtures, for pytest

GOOD, USER = "slack:T1:C1:1700.1", "slack:T1:U1"
BAD_IDS = {"NUL": "slack:T1:\x00", "10 KB": "s" * 10_000, "lone surrogate": "slack:T1:\udc80"}

Entry = Callable[[BaseDb, str], Awaitable[Any]]


def _agent(db: BaseDb) -> Agent:
    return Agent(model=ScriptedModel(["ok"]), db=db)


ENTRY_POINTS: dict[str, Entry] = {
    "dump_session": lambda db, bad: sessions.dump_session(db, bad),
    "session_history": lambda db, bad: sessions.session_history(db, bad),
    "restore_version": lambda db, bad: sessions.restore_version(db, bad, 1),
    "reset_session": lambda db, bad: sessions.reset_session(db, bad),
    "replace_state": lambda db, bad: sessions.replace_state(db, bad, {}, kind="migrate"),
    "delete_session": lambda db, bad: sessions.delete_session(db, bad),
    "load_session": lambda db, bad: load_session(db, bad),
    "audit_log": lambda db, bad: audit.audit_log(db, bad),
    "diff_versions": lambda db, bad: audit.diff_versions(db, bad, 1, 2),
    "undo_last (session)": lambda db, bad: audit.undo_last(db, bad, USER),
    "undo_last (user)": lambda db, bad: audit.undo_last(db, GOOD, bad),
    "export_user": lambda db, bad: user_export.export_user(db, bad),
    "erase_user": lambda db, bad: erasure.erase_user(db, bad),
    "usage (session)": lambda db, bad: usage_report(db, None, session_id=bad),
    "usage (user)": lambda db, bad: usage_report(db, None, user_id=bad),
    "usage (channel)": lambda db, bad: usage_report(db, None, channel=bad),
    "a run (session)": lambda db, bad: _agent(db).arun("hi", session_id=bad, user_id=USER),
    "a run (user)": lambda db, bad: _agent(db).arun("hi", session_id=GOOD, user_id=bad),
}


async def _fill(db: BaseDb) -> None:
    meta = SessionMeta(owner_id="taskboard", user_id=USER)
    await db.asave(GOOD, expected_version=0, changed=encode_delta({"a": 1}), meta=meta)


@pytest.mark.parametrize("bad", list(BAD_IDS))
async def test_every_admin_entry_point_refuses_a_bad_id_before_any_store(
    store: BaseDb, bad: str
) -> None:
    """Each entry point: InvalidIdError, one line saying nothing was written; the store
    holds exactly what it held (no partial write, no store error in its place)."""
    await _fill(store)
    before = await sessions.list_sessions(store)
    for name, entry in ENTRY_POINTS.items():
        with pytest.raises(InvalidIdError) as refused:
            await entry(store, BAD_IDS[bad])
        message = str(refused.value)
        assert "\n" not in message and message.endswith("Nothing was written."), (name, message)
        assert message.encode()  # printable anywhere: the bad text is escaped
    assert await sessions.list_sessions(store) == before


COMMANDS: dict[str, Callable[[str], list[str]]] = {
    "dump": lambda bad: ["dump", bad],
    "history": lambda bad: ["history", bad],
    "diff": lambda bad: ["diff", bad, "1", "2"],
    "restore": lambda bad: ["restore", bad, "1"],
    "delete": lambda bad: ["delete", bad, "--yes"],
    "usage --session": lambda bad: ["usage", "--session", bad],
    "usage --user": lambda bad: ["usage", "--user", bad],
    "erase --user": lambda bad: ["erase", "--user", bad, "--yes"],
    "export --user": lambda bad: ["export", "--user", bad],
}


@pytest.mark.parametrize("bad", list(BAD_IDS))
def test_every_state_command_refuses_a_bad_id_with_one_line_and_exit_2(
    tmp_path: Path, bad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`statebot state …` with such an id: exit 2, one line, the database unchanged."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    url = f"sqlite:///{tmp_path}/cli.db"

    async def fill() -> None:
        db = SqliteDb(db_url=url)
        await _fill(db)
        await db.aclose()

    asyncio.run(fill())
    for name, args in COMMANDS.items():
        result = CliRunner().invoke(main, ["state", "--db-url", url, *args(BAD_IDS[bad])])
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2, (name, result.output)
        assert len(lines) == 1 and "Nothing was written." in lines[0], (name, result.output)
    listed = CliRunner().invoke(main, ["state", "--db-url", url, "list"])
    assert listed.exit_code == 0 and listed.output.startswith(f"{GOOD}\tv1\t")


WEB_PAGES = [
    "/session?id={bad}",
    "/session/diff?id={bad}&a=1&b=2",
    "/session/export?id={bad}",
    "/session/confirm?action=reset&id={bad}",
]


# A lone surrogate cannot cross HTTP: the server decodes its bytes as U+FFFD, which
# names no session (its pages say so).
@pytest.mark.parametrize("bad", ["NUL", "10 KB"])
async def test_every_web_console_page_refuses_a_bad_id_with_a_400(
    store: BaseDb, bad: str, tmp_path: Path
) -> None:
    """The admin web console's session pages and its action answer such an id with a 400
    page saying nothing was written; the store is unchanged."""
    await _fill(store)
    before = await sessions.list_sessions(store)
    config = config_for(tmp_path)
    client = await signed_in_client(create_app(store, config), config)
    try:
        for path in WEB_PAGES:
            response = await client.get(path.format(bad=quote(BAD_IDS[bad])))
            text = await response.text()
            assert response.status == 400, (path, response.status)
            # a 10 KB id makes a request line the HTTP server itself refuses (8 KB)
            assert "Nothing was written." in text or "more than 8190 bytes" in text, path
        confirm = await (await client.get(f"/session/confirm?action=reset&id={GOOD}")).text()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', confirm)
        assert csrf is not None
        form = {"id": BAD_IDS[bad], "action": "delete", "confirmed": "yes", "csrf_token": csrf[1]}
        response = await client.post("/session/act", data=form)
        assert response.status == 400 and "Nothing was written." in await response.text()
    finally:
        await client.close()
    assert await sessions.list_sessions(store) == before
