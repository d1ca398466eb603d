"""The storage contract, run against every backend (see ``STORE_FACTORIES``)."""

from __future__ import annotations

import asyncio
import dataclasses
import math

import pytest

from core.db.base import BaseDb
from core.db.codec import encode_delta as texts
from core.db.limits import StateLimits
from core.db.records import SessionMeta, SessionRecord, UserMemory
from core.db.values import StateValueError
from core.exceptions import InvalidIdError, StaleVersionError, StateLimitError
from core.governance.sessions import restore_version

HOSTILE_IDS = [
    ":",
    "a:b:c",
    "{",
    "}",
    "{tag}:x",
    "ünïcødé ☃ 😀",
    "x" * 1024,
    "a",
    "a:",
    "%s' OR 1=1 --",
    "*",
]


async def _create(store: BaseDb, session_id: str = "s", **state: object) -> int:
    return await store.asave(session_id, expected_version=0, changed=texts(state))


async def _stored(store: BaseDb, session_id: str = "s") -> SessionRecord | None:
    """The stored record without the epoch (which hot store incarnation served it)."""
    record = await store.aload(session_id)
    return None if record is None else dataclasses.replace(record, epoch="")


#: key texts as the codec writes them, with what could go wrong in a splice: escapes,
#: non-ASCII, nesting, numbers whose text matters (1.0 is not 1), empty containers
AWKWARD_TEXTS = {
    "plain": '"text"',
    'quote"and\\slash': '"a \\"quoted\\" \\\\ value"',
    "ünïcode ✓": '"日本語 and emoji 🎉"',
    "nested": '{"a":[1,2.5,{"b":null}],"c":{"d":"}{]["}}',
    "float": "1.0",
    "exp": "1e+100",
    "big": "123456789012345678901234567890",
    "empty": '{"":[]}',
    "control": '"line\\nbreak\\ttab\\u0000nul"',
}


async def test_key_texts_round_trip_byte_exactly(store: BaseDb) -> None:
    """The texts a save is given are the texts a load returns, byte for byte."""
    await store.asave("s", expected_version=0, changed=AWKWARD_TEXTS)
    record = await store.aload("s")
    assert record is not None and dict(record.texts) == AWKWARD_TEXTS
    await store.asave("s", expected_version=1, changed={"plain": '"changed"'}, removed={"big"})
    record = await store.aload("s")
    expected = {**AWKWARD_TEXTS, "plain": '"changed"'}
    del expected["big"]
    assert record is not None and dict(record.texts) == expected
    assert record.state["float"] == 1.0 and record.state["ünïcode ✓"] == "日本語 and emoji 🎉"


async def test_missing_session_loads_as_none(store: BaseDb) -> None:
    """Loading a session that was never saved gives None."""
    assert await store.aload("nope") is None


async def test_create_then_load_gives_state_version_and_meta(store: BaseDb) -> None:
    """A created session loads with its state, version 1 and the meta it was saved with."""
    meta = SessionMeta(kind="team", owner_id="board", user_id="slack:T1:U1")
    version = await store.asave("s", expected_version=0, changed=texts({"tasks": [1]}), meta=meta)
    record = await store.aload("s")
    assert version == 1
    assert record is not None
    assert (record.state, record.version) == ({"tasks": [1]}, 1)
    assert (record.kind, record.owner_id, record.user_id) == ("team", "board", "slack:T1:U1")
    assert 0 < record.created_at <= record.updated_at


async def test_save_applies_changed_and_removed_keys_only(store: BaseDb) -> None:
    """A delta replaces changed keys, drops removed ones and keeps every other key."""
    await _create(store, a=1, b={"x": 1}, c="keep")
    await store.asave(
        "s", expected_version=1, changed=texts({"b": {"y": 2}, "d": None}), removed={"a"}
    )
    record = await store.aload("s")
    assert record is not None
    assert record.state == {"b": {"y": 2}, "c": "keep", "d": None}


async def test_version_grows_by_one_per_save(store: BaseDb) -> None:
    """Each save returns and stores the next version."""
    versions = [await _create(store, n=0)]
    for n in range(1, 4):
        versions.append(
            await store.asave("s", expected_version=versions[-1], changed=texts({"n": n}))
        )
    record = await store.aload("s")
    assert versions == [1, 2, 3, 4]
    assert record is not None and record.version == 4 and record.state == {"n": 3}


async def test_stale_version_is_rejected_and_nothing_written(store: BaseDb) -> None:
    """A save based on an old version raises StaleVersionError and changes nothing."""
    await _create(store, n=0)
    await store.asave("s", expected_version=1, changed=texts({"n": 1}))
    with pytest.raises(StaleVersionError) as caught:
        await store.asave("s", expected_version=1, changed=texts({"n": 99, "extra": True}))
    record = await store.aload("s")
    assert caught.value.expected == 1
    assert record is not None and (record.state, record.version) == ({"n": 1}, 2)
    assert [e.version for e in await store.ahistory("s")] == [2, 1]


async def test_create_fails_when_session_exists(store: BaseDb) -> None:
    """expected_version 0 on an existing session is stale; the session is untouched."""
    await _create(store, n=1)
    with pytest.raises(StaleVersionError):
        await store.asave("s", expected_version=0, changed=texts({"n": 2}))
    record = await store.aload("s")
    assert record is not None and record.state == {"n": 1}


async def test_update_of_missing_session_is_stale(store: BaseDb) -> None:
    """A save expecting version 3 of a session that does not exist creates nothing."""
    with pytest.raises(StaleVersionError):
        await store.asave("ghost", expected_version=3, changed=texts({"n": 1}))
    assert await store.aload("ghost") is None


async def test_history_lists_versions_newest_first(store: BaseDb) -> None:
    """History holds every saved version's full state, newest first, honouring limit."""
    await _create(store, n=0)
    for n in range(1, 4):
        await store.asave(
            "s", expected_version=n, changed=texts({"n": n}), meta=SessionMeta(user_id=f"u{n}")
        )
    history = await store.ahistory("s")
    assert [(e.version, e.state, e.user_id) for e in history] == [
        (4, {"n": 3}, "u3"),
        (3, {"n": 2}, "u2"),
        (2, {"n": 1}, "u1"),
        (1, {"n": 0}, None),
    ]
    assert [e.version for e in await store.ahistory("s", limit=2)] == [4, 3]


async def test_restore_makes_old_version_current_as_new_version(store: BaseDb) -> None:
    """Restoring version 1 brings back its exact state, saved as the next version."""
    await _create(store, a=1)
    await store.asave("s", expected_version=1, changed=texts({"b": 2}), removed={"a"})
    new_version = await restore_version(store, "s", 1)
    record = await store.aload("s")
    assert new_version == 3
    assert record is not None and (record.state, record.version) == ({"a": 1}, 3)


async def test_delete_removes_session_and_history(store: BaseDb) -> None:
    """Deleting returns True once, then the session and its history are gone."""
    await _create(store, a=1)
    await _create(store, "other", a=2)
    assert await store.adelete("s") is True
    assert await store.adelete("s") is False
    assert await store.aload("s") is None
    assert await store.ahistory("s") == []
    assert await store.aload("other") is not None


async def test_list_sessions_filters_by_owner_newest_first(store: BaseDb) -> None:
    """Listing by owner returns only that owner's sessions, most recently updated first."""
    for sid, owner in [("s1", "board"), ("s2", "shop"), ("s3", "board")]:
        await store.asave(
            sid, expected_version=0, changed=texts({"k": sid}), meta=SessionMeta(owner_id=owner)
        )
        await asyncio.sleep(0.002)  # distinct update times
    await store.asave("s1", expected_version=1, changed=texts({"k": "again"}))
    board = await store.alist_sessions(owner_id="board")
    assert [r.session_id for r in board] == ["s1", "s3"]
    assert board[0].owner_id == "board"  # a save without an owner keeps the stored one
    assert len(await store.alist_sessions()) == 3
    assert len(await store.alist_sessions(limit=1)) == 1


async def test_memories_are_kept_per_user_oldest_first(store: BaseDb) -> None:
    """Memories are listed per user in the order remembered and can be forgotten."""
    first = UserMemory("m1", "alice", "likes tea", ("drinks",), created_at=1.0)
    second = UserMemory("m2", "alice", "works on Q2", (), created_at=2.0)
    await store.aadd_memory(second)
    await store.aadd_memory(first)
    await store.aadd_memory(UserMemory("m3", "bob", "is on call", (), created_at=3.0))
    assert await store.aget_memories("alice") == [first, second]
    assert await store.adelete_memory("alice", "m1") is True
    assert await store.adelete_memory("alice", "m1") is False
    assert [m.memory_id for m in await store.aget_memories("alice")] == ["m2"]
    assert [m.memory_id for m in await store.aget_memories("bob")] == ["m3"]


@pytest.mark.parametrize(
    "bad", [object(), {1, 2}, math.nan, b"bytes"], ids=["object", "set", "nan", "bytes"]
)
async def test_non_json_value_rejected_naming_key_nothing_written(
    store: BaseDb, bad: object
) -> None:
    """A non-JSON value raises StateValueError naming its key; nothing is stored."""
    await _create(store, ok=1)
    with pytest.raises(StateValueError, match="'broken'"):
        await store.asave("s", expected_version=1, changed=texts({"fine": 2, "broken": bad}))
    with pytest.raises(StateValueError):
        await store.asave("new", expected_version=0, changed=texts({"broken": bad}))
    record = await store.aload("s")
    assert record is not None and (record.state, record.version) == ({"ok": 1}, 1)
    assert await store.aload("new") is None


async def test_too_long_key_rejected_nothing_written(store: BaseDb) -> None:
    """A key over the length limit raises StateLimitError and nothing is stored."""
    await _create(store, ok=1)
    with pytest.raises(StateLimitError, match="characters long"):
        await store.asave("s", expected_version=1, changed=texts({"k" * 300: 1, "fine": 2}))
    record = await store.aload("s")
    assert record is not None and (record.state, record.version) == ({"ok": 1}, 1)


async def test_oversized_state_rejected_naming_key_nothing_written(store: BaseDb) -> None:
    """A state over the size limit raises StateLimitError naming the big key."""
    await _create(store, ok=1)
    with pytest.raises(StateLimitError, match="'blob'"):
        await store.asave("s", expected_version=1, changed=texts({"blob": "x" * 1_100_000}))
    record = await store.aload("s")
    assert record is not None and (record.state, record.version) == ({"ok": 1}, 1)
    assert len(await store.ahistory("s")) == 1


async def test_hostile_session_ids_stay_isolated(store: BaseDb) -> None:
    """Ids with separators, braces, unicode, quotes or 1 KB length never collide."""
    for n, sid in enumerate(HOSTILE_IDS):
        await store.asave(sid, expected_version=0, changed=texts({"n": n, "id": sid}))
    await store.adelete("a")
    for n, sid in enumerate(HOSTILE_IDS):
        record = await store.aload(sid)
        if sid == "a":
            assert record is None
        else:
            assert record is not None and record.state == {"n": n, "id": sid}
            assert [e.version for e in await store.ahistory(sid)] == [1]
    listed = {r.session_id for r in await store.alist_sessions(limit=100)}
    assert listed == set(HOSTILE_IDS) - {"a"}


async def test_unicode_and_nested_values_round_trip(store: BaseDb) -> None:
    """Nested JSON with unicode, big ints, floats, nulls and escapes comes back equal."""
    state = {
        "ünï": {"nested": [1, 2.5, None, True, False, {"deep": "☃ 😀"}]},
        "big": 2**60,
        "tiny": 0.1 + 0.2,
        "quotes": "\"'\\\n\t\x00",
        "empty": {},
        "list": [],
    }
    await store.asave("s", expected_version=0, changed=texts(state))
    record = await store.aload("s")
    assert record is not None and record.state == state
    assert (await store.ahistory("s"))[0].state == state


async def test_loaded_state_is_a_private_copy(store: BaseDb) -> None:
    """Mutating a loaded state does not change what is stored."""
    await _create(store, tasks=[{"id": 1}])
    loaded = await store.aload("s")
    assert loaded is not None
    loaded.state["tasks"][0]["id"] = 99
    loaded.state["new"] = True
    again = await store.aload("s")
    assert again is not None and again.state == {"tasks": [{"id": 1}]}


async def test_concurrent_saves_with_same_version_exactly_one_wins(store: BaseDb) -> None:
    """Ten concurrent saves based on the same version: one commits, nine are stale."""
    await _create(store, n=0)
    results = await asyncio.gather(
        *(store.asave("s", expected_version=1, changed=texts({"n": i})) for i in range(10)),
        return_exceptions=True,
    )
    wins = [r for r in results if r == 2]
    stale = [r for r in results if isinstance(r, StaleVersionError)]
    assert (len(wins), len(stale)) == (1, 9)
    record = await store.aload("s")
    winner = results.index(2)
    assert record is not None and (record.state, record.version) == ({"n": winner}, 2)


async def test_concurrent_creates_exactly_one_wins(store: BaseDb) -> None:
    """Ten concurrent creations of one session: one commits, nine are stale."""
    results = await asyncio.gather(
        *(store.asave("s", expected_version=0, changed=texts({"n": i})) for i in range(10)),
        return_exceptions=True,
    )
    assert sum(r == 1 for r in results) == 1
    assert sum(isinstance(r, StaleVersionError) for r in results) == 9


async def test_upsert_snapshot_writes_only_newer_versions(store: BaseDb) -> None:
    """A snapshot is written when absent or newer, never over an equal or newer version."""
    snap = SessionRecord.from_state(
        "s", {"a": 1, "b": 2}, 5, owner_id="board", user_id="u1", created_at=10.0, updated_at=20.0
    )
    assert await store.aupsert_snapshot(snap) is True
    assert await _stored(store) == snap
    assert await store.aupsert_snapshot(SessionRecord.from_state("s", {"a": "old"}, 4)) is False
    assert await store.aupsert_snapshot(SessionRecord.from_state("s", {"a": "same"}, 5)) is False
    assert await _stored(store) == snap
    newer = SessionRecord.from_state(
        "s", {"c": 3}, 7, owner_id="board", user_id="u2", created_at=10.0, updated_at=30.0
    )
    assert await store.aupsert_snapshot(newer) is True
    assert await _stored(store) == newer  # the whole record, so "a" and "b" are gone
    assert [(e.version, e.state) for e in await store.ahistory("s")] == [
        (7, {"c": 3}),
        (5, {"a": 1, "b": 2}),
    ]


async def test_upsert_snapshots_gives_one_outcome_per_record(store: BaseDb) -> None:
    """A batch: written, older than stored, refused (that record only), in order."""
    await store.aupsert_snapshot(SessionRecord.from_state("kept", {"a": 1}, 5))
    outcomes = await store.aupsert_snapshots(
        [
            SessionRecord.from_state("new", {"n": 1}, 1),
            SessionRecord.from_state("kept", {"a": 0}, 3),
            SessionRecord.from_state("bad\x00id", {"n": 1}, 1),
        ]
    )
    assert outcomes[:2] == [True, False] and isinstance(outcomes[2], InvalidIdError)
    new, kept = await _stored(store, "new"), await _stored(store, "kept")
    assert new is not None and new.state == {"n": 1}
    assert kept is not None and (kept.version, kept.state) == (5, {"a": 1})


async def test_save_continues_from_snapshot_version(store: BaseDb) -> None:
    """After a snapshot at version 5 the next save expects 5 and writes 6."""
    await store.aupsert_snapshot(SessionRecord.from_state("s", {"a": 1}, 5))
    assert await store.asave("s", expected_version=5, changed=texts({"b": 2})) == 6
    record = await store.aload("s")
    assert record is not None and record.state == {"a": 1, "b": 2}


async def test_upsert_snapshot_rejects_non_json_state(store: BaseDb) -> None:
    """A snapshot with a non-JSON value raises StateValueError and writes nothing."""
    with pytest.raises(StateValueError):
        await store.aupsert_snapshot(SessionRecord.from_state("s", {"bad": object()}, 1))
    assert await store.aload("s") is None


async def test_load_many_returns_existing_sessions_only(store: BaseDb) -> None:
    """aload_many maps each existing id to its record and leaves missing ids out."""
    await _create(store, "s1", n=1)
    await _create(store, "s2", n=2)
    found = await store.aload_many(["s1", "missing", "s2", "s1"])
    assert set(found) == {"s1", "s2"}
    assert found["s2"].state == {"n": 2}
    assert await store.aload_many([]) == {}


@pytest.mark.parametrize(
    ("session_id", "user_id", "reason"),
    [
        ("s\x00t", None, "NUL"),
        ("s", "u\x00", "NUL"),
        ("slack:T1:C1:" + "x" * 1100, None, "1,024"),
    ],
)
async def test_ids_no_durable_store_can_hold_are_refused_everywhere(
    store: BaseDb, session_id: str, user_id: str | None, reason: str
) -> None:
    """A NUL or an over-long id is refused by every store before anything is written."""
    meta = SessionMeta(user_id=user_id)
    with pytest.raises(InvalidIdError, match=reason):
        await store.asave(session_id, expected_version=0, changed=texts({"n": 1}), meta=meta)
    with pytest.raises(InvalidIdError, match=reason):
        await store.aupsert_snapshot(
            SessionRecord.from_state(session_id, {"n": 1}, 1, user_id=user_id)
        )
    assert await store.aload(session_id) is None


async def test_session_data_is_saved_with_the_state_and_kept_until_replaced(
    store: BaseDb,
) -> None:
    """``data`` is written atomically with a save, kept by saves without it, replaced whole."""
    runs = '{"runs":[{"run_id":"r1","input":"hi"}]}'
    await store.asave("s", expected_version=0, changed=texts({"n": 1}), data=runs)
    await store.asave("s", expected_version=1, changed=texts({"n": 2}))
    record = await store.aload("s")
    assert record is not None and record.data == runs and record.state == {"n": 2}
    await store.asave("s", expected_version=2, changed=texts({}), data='{"runs":[]}')
    record = await store.aload("s")
    assert record is not None and record.data == '{"runs":[]}' and record.version == 3


async def test_session_data_travels_with_snapshots_and_goes_with_deletes(store: BaseDb) -> None:
    """A snapshot carries the data; a delete removes it with the session."""
    snap = SessionRecord.from_state("s", {"a": 1}, 4, data='{"name":"standup"}')
    assert await store.aupsert_snapshot(snap)
    record = await store.aload("s")
    assert record is not None and record.data == '{"name":"standup"}'
    assert await store.adelete("s")
    await store.asave("s", expected_version=0, changed=texts({"a": 2}))
    record = await store.aload("s")
    assert record is not None and record.data == ""


async def test_session_data_over_its_limit_writes_nothing(store: BaseDb) -> None:
    """Data larger than ``max_data_bytes`` is refused with the state change."""
    limit = StateLimits().max_data_bytes  # every store defaults to the same limits
    await store.asave("s", expected_version=0, changed=texts({"n": 1}))
    with pytest.raises(StateLimitError, match="run history"):
        await store.asave("s", expected_version=1, changed=texts({"n": 2}), data="x" * (limit + 1))
    record = await store.aload("s")
    assert record is not None and record.state == {"n": 1} and record.version == 1


@pytest.mark.parametrize(
    ("session_id", "reason"),
    [
        ("s\x00t", "NUL"),
        ("slack:T1:C1:" + "x" * 10_000, "1,024"),
        ("s\udc80t", "not valid text"),
    ],
)
async def test_a_run_on_an_id_no_store_can_hold_is_refused_before_the_store_sees_it(
    store: BaseDb, session_id: str, reason: str
) -> None:
    """Opening a run on a NUL, a 10 KB or a lone-surrogate id is the same InvalidIdError
    on every backend (not a database error), and nothing is held or written."""
    with pytest.raises(InvalidIdError, match=reason):
        async with store.open_run(session_id, timeout=2):
            pass
    async with store.open_run("s", timeout=2) as opened:  # nothing left held
        assert opened.record is None
