"""What an example program leaves behind: the ``sitecustomize`` both sides run with.

:func:`sitecustomize` renders a module that Python imports at start-up (it sits first
on ``PYTHONPATH``). At exit it finds every Agent, Team and Workflow the program made
(the garbage collector's view) when the main thread ends, before the thread pools
shut down, reads every session in each store they used, and
writes the states as JSON. Only the stores the example gave its objects are read: ours
gives an owner without one a store in process memory (a documented difference), Agno
keeps nothing, so those sessions are left out on both sides. The
reading is the same for both packages, only the store's listing call differs (Agno's
``get_sessions`` per session type; our stores' ``alist_sessions``).

:func:`normalise` then makes two captures comparable: ids and clock times are drawn
fresh on each run, so they become placeholders, and the order of sessions is sorted.
"""

from __future__ import annotations

import json
import re
from typing import Any

_TEMPLATE = r"""
import asyncio, gc, importlib.abc, importlib.util, json, os, sys

PKG = {pkg!r}
OUT = os.environ.get("COOKBOOK_STATE_OUT")


def _classes():
    found = []
    for module, name in (("agent", "Agent"), ("team", "Team"), ("workflow", "Workflow")):
        mod = sys.modules.get(f"{{PKG}}.{{module}}")
        cls = getattr(mod, name, None) if mod is not None else None
        if cls is not None:
            found.append((module, cls))
    return found


def _wait(value):
    return asyncio.run(value) if asyncio.iscoroutine(value) else value


def _db_sessions(db):
    rows = []
    if PKG == "agno":
        from agno.db.base import SessionType
        for kind in (SessionType.AGENT, SessionType.TEAM, SessionType.WORKFLOW):
            for session in _wait(db.get_sessions(session_type=kind)) or []:
                data = getattr(session, "session_data", None) or {{}}
                rows.append([kind.value, session.session_id, data.get("session_state") or {{}}])
    else:
        from core.utils.sync import run_sync
        for record in run_sync(db.alist_sessions(limit=100_000)):
            rows.append([record.kind, record.session_id, record.state or {{}}])
    return rows


def _dump():
    if not OUT:
        return
    capture = {{"sessions": [], "objects": [], "errors": []}}
    seen_dbs = []
    try:
        classes = _classes()
        for obj in gc.get_objects():
            for kind, cls in classes:
                if type(obj) is not cls:
                    continue
                given = obj.__dict__.get("_cookbook_db_given")
                capture["objects"].append([kind, getattr(obj, "name", None), bool(given)])
                db = getattr(obj, "db", None)
                if given and not any(db is d for d in seen_dbs):
                    seen_dbs.append(db)
        for db in seen_dbs:
            try:
                capture["sessions"] += _db_sessions(db)
            except Exception as exc:
                capture["errors"].append(f"{{type(db).__name__}}: {{type(exc).__name__}}: {{exc}}")
    except Exception as exc:
        capture["errors"].append(f"capture: {{type(exc).__name__}}: {{exc}}")
    with open(OUT, "w") as out:
        json.dump(capture, out, default=repr, sort_keys=False)


# which objects were given a store: ours gives a store-less owner one in process memory
# (a documented difference), so only the stores the example made are read, on both sides
_WATCH = {{f"{{PKG}}.agent": "Agent", f"{{PKG}}.team": "Team", f"{{PKG}}.workflow": "Workflow"}}


def _mark(cls):
    init = cls.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.__dict__["_cookbook_db_given"] = kwargs.get("db") is not None

    cls.__init__ = __init__


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _WATCH:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            cls = getattr(module, _WATCH[name], None)
            if cls is not None:
                _mark(cls)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _Finder())


# before the interpreter's exit shuts the thread pools down (stores read through them):
# threading's exit hooks run newest first, so this one runs before concurrent.futures'
import concurrent.futures.thread, threading
threading._register_atexit(_dump)
"""

# a uuid with or without dashes (Agno's str(uuid4()), our uuid4().hex)
_UUID = re.compile(r"\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b", re.I)
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[+-]\d{2}:?\d{2}|Z)?")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def sitecustomize(package: str) -> str:
    """The start-up module's text for ``package`` ("agno" or "core")."""
    return _TEMPLATE.format(pkg=package)


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return _DATE.sub("<date>", _TIME.sub("<time>", _UUID.sub("<id>", value)))
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, float) and value > 1e9:  # an epoch timestamp
        return "<time>"
    return value


def normalise(capture: dict[str, Any]) -> dict[str, Any]:
    """The stored sessions with fresh ids and times replaced, in a fixed order.

    The objects still alive at exit are not compared: that is the collector's choice.
    """
    return {"sessions": sorted(json.dumps(_scrub(row)) for row in capture.get("sessions", []))}


def is_empty(capture: dict[str, Any]) -> bool:
    """True when no session or object holds any state."""
    return not any(row[-1] for row in capture.get("sessions", []))
