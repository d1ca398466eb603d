"""Property: across runs that reuse the cached live dict, each run starts from the store.

Random runs change the state through item reads kept for later, writes, whole-dict
reads and rollbacks; some keep the live dict itself. Between runs, "code" changes
everything it kept. The oracle: every run starts with exactly the stored state, and
after its save the store equals what the run left.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.db import codec
from core.db.in_memory import InMemoryDb
from core.db.records import SessionMeta
from core.db.values import TRANSIENT_KEYS
from core.state.cache import cache_of
from core.state.session import open_session

KEYS = ["a", "b", "c"]
leaf = st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=2))
value = st.one_of(leaf, st.lists(leaf, max_size=2), st.dictionaries(st.sampled_from(KEYS), leaf))
key = st.sampled_from(KEYS)
op = st.one_of(
    st.tuples(st.just("set"), key, value),
    st.tuples(st.sampled_from(["get", "del"]), key),
    st.tuples(st.sampled_from(["items", "keep_dict", "checkpoint", "rollback"])),
)
run = st.lists(op, max_size=6)


def _public(state: dict[str, Any]) -> dict[str, Any]:
    plain = {k: v for k, v in dict.items(state) if k not in TRANSIENT_KEYS}
    return codec.decode_state(codec.encode_state(plain))


def _change_kept(kept: list[Any]) -> None:
    """What code that kept references does after the run."""
    for thing in kept:
        if isinstance(thing, list):
            thing.append("later")
        elif isinstance(thing, dict):
            thing["a"] = "later"


async def _runs(initial: dict[str, Any], runs: list[list[Any]]) -> None:
    db = InMemoryDb()
    meta = SessionMeta(owner_id="o")
    await db.asave("s", expected_version=0, changed=codec.encode_state(initial), meta=meta)
    kept: list[Any] = []
    for ops in runs:
        async with open_session(
            db, session_id="s", user_id="u", run_id="r", meta=meta, default={}
        ) as handle:
            stored = (await db.aload("s")).state  # type: ignore[union-attr]
            assert _public(handle.tracker.state) == stored
            checkpoint = handle.tracker.checkpoint()
            for o in ops:
                state = handle.state
                if o[0] == "set":
                    state[o[1]] = o[2]
                elif o[0] == "del":
                    state.pop(o[1], None)
                elif o[0] == "get":
                    kept.append(state.get(o[1]))
                elif o[0] == "items":
                    kept.extend(v for _, v in state.items())
                elif o[0] == "keep_dict":
                    kept.append(state)
                elif o[0] == "checkpoint":
                    checkpoint = handle.tracker.checkpoint()
                else:
                    handle.tracker.rollback(checkpoint)
                del state  # only what the op kept may outlive the run
            await handle.persist_final()
            left = _public(handle.tracker.state)
        assert (await db.aload("s")).state == left  # type: ignore[union-attr]
        _change_kept(kept)
    assert cache_of(db).hits == len(runs) - 1 if runs else True


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(key, value, max_size=3), st.lists(run, max_size=5))
def test_each_run_starts_from_the_store(initial: dict[str, Any], runs: list[list[Any]]) -> None:
    """Whatever earlier runs' code kept and changed later, a run sees the stored state."""
    asyncio.run(_runs(initial, runs))
