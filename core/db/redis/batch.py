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
