"""Many script calls in one round trip per Redis node, on a server or a cluster.

Each call's keys share one hash slot (one bucket's tag, ``keys.py``). On one server the
calls go in one pipeline: one round trip. On a cluster, the cluster pipeline groups
them by the node serving each call's slot and sends one pipeline per node, all nodes
at once: one round trip per primary, in parallel. (``ClusterPipeline.evalsha`` is
blocked by redis-py as a blanket rule, since it cannot know a script's keys share a
slot; sent as a raw ``EVALSHA`` the command is routed by its keys, and keys in several
slots are refused before anything is sent.)
"""

from __future__ import annotations

import json
from typing import Any

from redis.exceptions import NoScriptError

from core.db.redis.client import RedisClient
from core.db.redis.scripts import LuaScript

Call = tuple[LuaScript, list[str], list[Any]]


async def run_scripts(client: RedisClient, calls: list[Call]) -> list[Any]:
    """The replies of ``calls``, in order; scripts a node lost are loaded once and rerun.

    Only for scripts that are safe to run twice (reads and compare-and-remove): a
    NOSCRIPT reply, or a node lost mid-batch, makes the whole batch run again.
    """
    if not calls:
        return []
    for attempt in range(2):
        pipe = client.pipeline(transaction=False)
        for script, keys, args in calls:
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            return list(await pipe.execute())
        except NoScriptError:
            if attempt:
                raise
            # on a cluster SCRIPT LOAD goes to every primary (a promoted replica has
            # an empty script cache)
            for script in {s.sha: s for s, _, _ in calls}.values():
                await client.script_load(script.source)
    raise AssertionError("unreachable")


#: one bucket's part of a call: its keys and arguments
Group = tuple[list[str], list[Any]]

#: buckets per call on one server: 32 keep a call of a 1,000-session batch near 125
#: sessions, so other clients wait at most a few milliseconds behind it
GROUPS_PER_CALL = 32


async def run_grouped(
    client: RedisClient, script: LuaScript, groups: list[Group], *, cluster: bool
) -> list[Any]:
    """One result per group, in order, from a script that takes groups back to back.

    ``script`` reads its KEYS and ARGV as consecutive groups (a fixed number of keys
    and arguments each) and returns a JSON list with one item per group. On a cluster
    each group is its own call (a group's keys share one slot; the groups do not); one
    server takes up to :data:`GROUPS_PER_CALL` groups per call, since packing hundreds
    of small commands costs this process more than the scripts cost Redis.
    """
    size = 1 if cluster else GROUPS_PER_CALL
    calls: list[Call] = []
    for start in range(0, len(groups), size):
        chunk = groups[start : start + size]
        calls.append(
            (script, [k for keys, _ in chunk for k in keys], [a for _, args in chunk for a in args])
        )
    return [item for reply in await run_scripts(client, calls) for item in json.loads(reply)]
