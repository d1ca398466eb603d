# Seed 004's Taskboard: its agent and its two tool definitions as written; MODEL and
# agent_db are the names the seed leaves to the reader, and the three tools it names
# without showing come from the project's taskboard toolkit.
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.models.openai import OpenAIChat
from core.tools import tool
from tools.taskboard.tools import get_summary, list_tasks, remove_task

MODEL = OpenAIChat(id="gpt-5-mini")
agent_db = SqliteDb(db_file="tmp/taskboard.db")


@tool
def add_task(session_state: dict, title: str, category: str = "general") -> str:
    """Add a task to the board."""
    if category not in session_state["categories"]:
        return f"Unknown category: {category}"
    task = {"id": len(session_state["tasks"]) + 1, "title": title, "status": "open"}
    session_state["tasks"].append(task)
    return f"Added task #{task['id']}"
@tool
def update_task_status(session_state: dict, task_id: int, status: str) -> str:
    """Mark a task as open, in_progress, or done."""
    for t in session_state["tasks"]:
        if t["id"] == task_id:
            t["status"] = status
            return f"Task #{task_id} → {status}"
    return f"Task #{task_id} not found"


taskboard = Agent(
    id="taskboard",
    model=MODEL,
    db=agent_db,
    tools=[add_task, update_task_status, list_tasks, remove_task, get_summary],
    session_state={
        "tasks": [],
        "categories": ["general", "work", "personal"],
    },
    enable_agentic_state=True, # agent can mutate session_state
    add_session_state_to_context=True, # state is visible in the prompt
)
