from core.agent import Agent
from core.models.openai import OpenAIChat
from core.db.sqlite import SqliteDb
agent = Agent(
    db=SqliteDb(db_file="tmp/agents.db"),
    model=OpenAIChat(id="gpt-5-mini"),
    session_state={"shopping_list": []},
    add_session_state_to_context=True, # Required so the agent is aware of the session state
    enable_agentic_state=True, # Adds a tool to manage the session state
)
agent.print_response("Add milk, eggs, and bread to the shopping list", stream=True)
print(f"Session state: {agent.get_session_state()}")
