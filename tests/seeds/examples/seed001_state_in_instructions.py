from textwrap import dedent
from core.agent import Agent
from core.models.openai import OpenAIChat
from core.db.sqlite import SqliteDb
agent = Agent(
    db=SqliteDb(db_file="tmp/agents.db"),
    model=OpenAIChat(id="gpt-5-mini"),
    # Initialize the session state with a variable
    session_state={"user_name": "John"},
    # You can use variables from the session state in the instructions
    instructions="Users name is {user_name}",
    markdown=True,
)
agent.print_response("What is my name?", stream=True)
