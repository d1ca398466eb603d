"""Statebot's runtime, with Agno's import paths: ``core`` where Agno says ``agno``.

The names most programs need are importable from here (``from core import Agent``);
each also keeps its Agno path (``core.agent.Agent``, ``core.db.sqlite.SqliteDb`` …),
which the documentation uses. They load on first use, so ``import core`` stays cheap
and importing one part does not load the others (SQLAlchemy, redis-py, openai).

Layers, bottom to top (each imports only those below it; ``pyproject.toml`` holds the
contract): ``exceptions`` < ``utils``, ``crypto``, ``redaction``, ``models`` < ``db``
(storage only) < ``run`` < ``state`` < ``schedule`` < ``governance`` < ``session`` < ``tools`` <
``memory`` < ``agent`` < ``team`` < ``workflow`` < ``storage``, ``testing``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.agent import Agent as Agent
    from core.db.in_memory import InMemoryDb as InMemoryDb
    from core.db.postgres import PostgresDb as PostgresDb
    from core.db.redis import RedisDb as RedisDb
    from core.db.sqlite import SqliteDb as SqliteDb
    from core.models.openai import OpenAIChat as OpenAIChat
    from core.models.scripted import ScriptedModel as ScriptedModel
    from core.run import RunContext as RunContext
    from core.run import RunOutput as RunOutput
    from core.team import Team as Team
    from core.tools import Toolkit as Toolkit
    from core.tools import tool as tool
    from core.workflow import Workflow as Workflow

#: public name -> the module that defines its Agno path
_HOMES = {
    "Agent": "core.agent",
    "InMemoryDb": "core.db.in_memory",
    "OpenAIChat": "core.models.openai",
    "PostgresDb": "core.db.postgres",
    "RedisDb": "core.db.redis",
    "RunContext": "core.run",
    "RunOutput": "core.run",
    "ScriptedModel": "core.models.scripted",
    "SqliteDb": "core.db.sqlite",
    "Team": "core.team",
    "Toolkit": "core.tools",
    "Workflow": "core.workflow",
    "tool": "core.tools",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'core' has no attribute {name!r}")
    value: object = getattr(importlib.import_module(home), name)
    globals()[name] = value  # the next lookup skips this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
