"""The stored state keeps the top-level key order the code wrote, on every store.

State is shown to the model and to users, so its order must not depend on the hash
seed of the process that saved it. Each case runs in a subprocess under two hash
seeds: a set's iteration order changes with the seed, insertion order does not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: the issue's four keys, then 200 more in no sorted order (past Redis's small-hash
#: encoding, whose field order is not insertion order)
INITIAL: dict[str, object] = {"shopping_list": [], "chores": [], "zeta": 1, "alpha": 2}
INITIAL.update({f"k{(n * 7919) % 1000}": n for n in range(200)})
#: what the tool leaves: every named key changed in place or reassigned, new keys added
EXPECTED = [*INITIAL, "omega", "beta", "mu"]

_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, {root!r})
    from core.agent import Agent
    from core.models.scripted import ScriptedModel, tool_call
    {make}

    def tidy(session_state: dict) -> str:
        \"\"\"Change every key and add three new ones.\"\"\"
        session_state["alpha"] = 20
        session_state["shopping_list"].append("milk")
        session_state["zeta"] = 10
        session_state["chores"].append("dishes")
        session_state["omega"] = 1
        session_state["beta"] = 2
        session_state["mu"] = 3
        return "tidied"

    def turn(messages, tools):
        return "done" if messages[-1].role == "tool" else tool_call("tidy")

    db = make()
    agent = Agent(model=ScriptedModel([turn, turn]), db=db,
                  session_state={initial!r}, tools=[tidy])
    agent.run("tidy up", session_id="s")
    fresh = Agent(db=db, session_state={{}})
    print(json.dumps([list(agent.get_session_state(session_id="s")),
                      list(fresh.get_session_state(session_id="s"))]))
    """
)


def _maker(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Source of a ``make()`` that builds the store of ``kind`` in the subprocess."""
    if kind == "sqlite":
        return (
            "from core.db.sqlite import SqliteDb\n"
            f"def make(): return SqliteDb(db_file={str(tmp_path / 'state.db')!r})"
        )
    if kind == "postgres":
        url, schema = request.getfixturevalue("postgres_schema")
        return (
            "from core.db.postgres import PostgresDb\n"
            f"def make(): return PostgresDb(db_url={url!r}, schema={schema!r})"
        )
    url = request.getfixturevalue("redis_url")
    prefix = request.getfixturevalue("key_prefix")
    return (
        "from core.db.redis import RedisDb\n"
        f"def make(): return RedisDb(db_url={url!r}, key_prefix={prefix!r})"
    )


def _run(make: str, seed: str) -> list[list[str]]:
    script = _SCRIPT.format(root=str(ROOT), make=make, initial=INITIAL)
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    orders: list[list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return orders


@pytest.mark.parametrize("seed", ["0", "1"])
@pytest.mark.parametrize("kind", ["sqlite", "postgres", "redis"])
def test_stored_state_keeps_the_order_the_code_wrote(
    kind: str, seed: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """After a run that changes every key, both the running and a fresh agent read the
    keys in insertion order: old keys where they were, new keys in the order added."""
    running, fresh = _run(_maker(kind, tmp_path, request), seed)
    assert running == EXPECTED
    assert fresh == EXPECTED


@pytest.mark.parametrize("seed", ["0", "1"])
def test_in_memory_state_keeps_the_order_the_code_wrote(seed: str) -> None:
    """The in-memory store (one process) keeps the order too."""
    make = "from core.db.in_memory import InMemoryDb\n_db = InMemoryDb()\ndef make(): return _db"
    running, fresh = _run(make, seed)
    assert running == EXPECTED
    assert fresh == EXPECTED
