# ✅ DO: Implement proper storage-backed state persistence
from core.agent import Agent
from core.models.openai import OpenAIChat
from core.storage.sqlite import SqliteStorage
agent = Agent(
    model=OpenAIChat(id="claude-3-5-sonnet-20241022"),
    session_id="user_123_session",
    storage=SqliteStorage(table_name="agent_sessions", db_file="data.db"),
)
# ✅ DO: Handle existing state gracefully
existing_value = agent.state.get("user_name")
if existing_value:
    print(f"Welcome back, {existing_value}!")
else:
    print("Welcome, new user!")
# ✅ DO: Update state with meaningful data
agent.state.set("last_interaction", "2023-10-15")
agent.state.set("session_count", agent.state.get("session_count", 0) + 1)
# ✅ DO: State is automatically saved to storage after each run
agent.run("Hello")
