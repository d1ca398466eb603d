"""``Workflow.deep_copy(update=...)``: Agno's isolated copy of a workflow.

The copy is built by the constructor from the workflow's current settings, with
``update`` over them (a name the constructor does not take is a TypeError). Its steps,
with their agents and teams, its ``session_state``, ``metadata`` and dependencies are
deep copies, so changing one side never changes the other. What stands for an outside
resource is shared, as in Agno: stores (a copy must see the same sessions), models
(they hold HTTP clients) and budgets (limits counted in the store); functions are
kept by reference, bound methods with their objects. An id derived from
the name follows the copy's name; an id the code gave is kept.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.db.base import BaseDb
from core.governance.budgets.model import Budget
from core.models.base import Model
from core.utils.ids import slug

if TYPE_CHECKING:  # workflow.py imports this module
    from core.workflow.workflow import Workflow

#: shared by the copy, never duplicated; a bound method too (a step's function is
#: kept by reference, as in Agno, not copied with its object)
SHARED = (BaseDb, Model, Budget, types.MethodType)
#: never walked into: they hold no store or model of their own
_LEAVES = (str, bytes, int, float, bool, type(None), type, types.FunctionType, types.ModuleType)


def shared_memo(*roots: Any) -> dict[int, Any]:
    """A ``copy.deepcopy`` memo that maps every shared resource under ``roots`` to itself."""
    memo: dict[int, Any] = {}
    seen: set[int] = set()
    pending = list(roots)
    while pending:
        node = pending.pop()
        if isinstance(node, _LEAVES) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SHARED):
            memo[id(node)] = node
        elif isinstance(node, Mapping):
            pending.extend(node.keys())
            pending.extend(node.values())
        elif isinstance(node, list | tuple | set | frozenset):
            pending.extend(node)
        else:
            pending.extend(_attributes(node))
    return memo


def _attributes(node: Any) -> list[Any]:
    """An object's attribute values, from its ``__dict__`` and ``__slots__``."""
    values = list(getattr(node, "__dict__", {}).values())
    for cls in type(node).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(node, name):
                values.append(getattr(node, name))
    return values


def workflow_settings(workflow: Workflow) -> dict[str, Any]:
    """The constructor arguments that rebuild ``workflow`` as it is now."""
    schema = workflow.state_schema
    derived = workflow.name is not None and workflow.id == slug(workflow.name, workflow.kind)
    return {
        "name": workflow.name,
        "id": None if derived else workflow.id,
        "steps": workflow.steps,
        "session_state": workflow.session_state,
        "db": workflow.db,
        "description": workflow.description,
        "session_id": workflow.session_id,
        "user_id": workflow.user_id,
        "dependencies": workflow.dependencies,
        "overwrite_db_session_state": workflow.overwrite_db_session_state,
        "run_timeout": workflow.run_timeout,
        # the schema object carries its version and migrations
        "session_state_schema": schema,
        "budget": workflow.budget,
        "add_workflow_history_to_steps": workflow.add_workflow_history_to_steps,
        "num_history_runs": workflow.num_history_runs,
        "metadata": workflow.metadata,
        "cache_session": workflow.cache_session,
        "add_dependencies_to_context": workflow.add_dependencies_to_context,
        "add_session_state_to_context": workflow.add_session_state_to_context,
        "stream": workflow.stream,
        "stream_events": workflow.stream_events,
        "stream_executor_events": workflow.stream_executor_events,
    }


def deep_copy_workflow(workflow: Workflow, update: Mapping[str, Any] | None) -> Workflow:
    """A new workflow of the same class from a deep copy of the settings, ``update`` over them."""
    settings = workflow_settings(workflow)
    copied = copy.deepcopy(settings, shared_memo(settings))
    copied.update(update or {})
    return type(workflow)(**copied)
