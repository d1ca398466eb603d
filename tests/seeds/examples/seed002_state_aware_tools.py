# ✅ DO: Create tools that interact with agent state
from core.agent import Agent
from core.models.openai import OpenAIChat
from core.tools import tool
@tool
def counter_tool(agent_state) -> str:
    """Increment a counter in the agent state and return current value."""
    # ✅ DO: Use safe state access with defaults
    count = agent_state.get("counter", 0)
    count += 1
    agent_state.set("counter", count)
    # ✅ DO: Update related metadata
    agent_state.set("last_counter_update", datetime.now().isoformat())
    return f"Counter incremented to: {count}"
@tool
def reset_counter_tool(agent_state) -> str:
    """Reset the counter to zero."""
    agent_state.set("counter", 0)
    agent_state.set("counter_reset_at", datetime.now().isoformat())
    return "Counter reset to 0"
@tool
def get_user_stats_tool(agent_state) -> str:
    """Get user statistics from state."""
    # ✅ DO: Aggregate state data for insights
    counter = agent_state.get("counter", 0)
    user = agent_state.get("user", {})
    session_count = agent_state.get("session_count", 0)
    stats = {
        "counter_value": counter,
        "user_name": user.get("name", "Unknown"),
        "session_count": session_count,
        "total_interactions": counter + session_count
    }
    return f"User Stats: {stats}"
agent = Agent(
    model=OpenAIChat(id="claude-3-5-sonnet-20241022"),
    tools=[counter_tool, reset_counter_tool, get_user_stats_tool],
)
# ✅ DO: Tools can access and modify state
agent.run("Increment the counter three times")
agent.run("Show me my statistics")
