"""The ready agents by id, and the friendly slash-command aliases of their tools.

The chat layer builds its agents from here: ``create_agents(model, db)`` gives one
Agent per id, and ``COMMAND_ALIASES[agent_id]`` maps a short command word (``add``)
to the tool it runs (``add_task``), maybe with preset arguments (``done`` runs
``update_task_status status=done``, so ``/taskboard done 3`` finishes task #3). A
tool's own name always works as a command too (internal tools excepted).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from core.agent import Agent
from core.db.base import BaseDb
from core.models.base import Model
from core.team import Team
from core.workflow import Workflow
from tools import customers, shopping, taskboard
from tools.shopping import workflow as shopping_workflow
from tools.taskboard.index import PREFIX as TASK_INDEX_PREFIX

#: anything the chat router can address: agents, teams and workflows alike
ChatTarget = Agent | Team | Workflow

AGENT_FACTORIES: dict[str, Callable[..., ChatTarget]] = {
    taskboard.AGENT_ID: taskboard.create_agent,
    shopping.AGENT_ID: shopping.create_agent,
    customers.AGENT_ID: customers.create_agent,
    shopping_workflow.WORKFLOW_ID: shopping_workflow.create_workflow,
}

COMMAND_ALIASES: dict[str, dict[str, str]] = {
    taskboard.AGENT_ID: {
        "add": "add_task",
        "list": "list_tasks",
        "status": "update_task_status",
        "start": "update_task_status status=in_progress",
        "done": "update_task_status status=done",
        "remove": "remove_task",
        "summary": "get_summary",
        "due": "set_due",
        "overdue": "list_overdue",
    },
    shopping.AGENT_ID: {
        "add": "add_item",
        "remove": "remove_item",
        "list": "list_items",
        "clear": "clear_list",
    },
    customers.AGENT_ID: {
        "customer": "process_customer_request",
    },
}


#: session ids the ready agents keep for their own bookkeeping, not conversations
#: (a user's task index); ``statebot state list`` leaves them out unless ``--all``
INTERNAL_SESSION_PREFIXES: tuple[str, ...] = (TASK_INDEX_PREFIX,)


def is_internal_session(session_id: str) -> bool:
    """Whether ``session_id`` is bookkeeping of a ready agent rather than a conversation."""
    return session_id.startswith(INTERNAL_SESSION_PREFIXES)


def create_agents(model: Model | None = None, db: BaseDb | None = None) -> dict[str, ChatTarget]:
    """One ready agent (or workflow) per id, all on the same model and store."""
    return {agent_id: factory(model=model, db=db) for agent_id, factory in AGENT_FACTORIES.items()}


def resolve_command(agent_id: str, command: str, available: Collection[str] = ()) -> str | None:
    """The tool a command word runs: an alias, or a tool name in ``available``."""
    word = command.strip().lstrip("/").lower()
    alias = COMMAND_ALIASES.get(agent_id, {}).get(word)
    if alias is not None:
        return alias.split(maxsplit=1)[0]  # the tool; preset arguments are the parser's
    return word if word in available else None
