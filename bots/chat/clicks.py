"""Buttons on cards: a click runs its tool like a slash command and redraws the card.

The reply's card is the list as the run left it; its text is what the tool said.
The run goes through the one turn pipeline (``bots.chat.turns``).
"""

from __future__ import annotations

import structlog

from bots.chat import help
from bots.chat.cards import Click, placed, stale, tool_card
from bots.chat.context import ChatContext, origin
from bots.chat.registry import AgentRegistry, tools_of
from bots.chat.replies import Reply
from bots.chat.turns import Turn, take_turn
from bots.keys import channel_of_session
from bots.ops.logging import bind_event
from core.run.output import RunOutput

log = structlog.get_logger("bots.service")

__all__ = ["CLICK_EXPIRED", "CLICK_STALE", "run_click"]

CLICK_STALE = "That board was out of date: the item is no longer there, so nothing was done."
CLICK_EXPIRED = "That button no longer works (its agent or command is gone); nothing was done."


async def run_click(click: Click, *, agents: AgentRegistry, context: ChatContext) -> Reply:
    """Run a card's button (or its add form) like a slash command, and redraw the card.

    The reply's card is the list as the run left it; its text is what the tool said.
    A click on a stale card (the item was removed meanwhile) is ephemeral and says so;
    so is a button of an agent or tool that no longer exists. Nothing else changes.
    """
    clicker = click.clicker
    with bind_event(  # a refused click is logged with the click's ids too
        platform=click.platform,
        session_id=click.session_id,
        user_id=clicker,
        event_id=click.event_id,
    ):
        agent_id = agents.id_of(click.agent_id)
        tools = tools_of(agents[agent_id]) if agent_id is not None else {}
        if agent_id is None or click.tool not in tools or click.view not in tools:
            log.info("click_unknown", agent=click.agent_id, tool=click.tool)
            return Reply(CLICK_EXPIRED, ephemeral=True)
    agent = agents[agent_id]
    view = tools[click.view]

    async def run() -> RunOutput:
        return await agent.arun_tool(
            click.tool,
            click.arguments,
            session_id=click.session_id,
            user_id=clicker,
            # times typed into the add form are read in the clicker's timezone
            metadata=origin(click.platform, click.event_id, channel_of_session(click.session_id))
            | await context.user_tz(click.platform, click.workspace, click.user),
        )

    def read(output: RunOutput) -> Reply:
        text = output.get_content_as_string() or "Done."
        card = placed(
            tool_card(view, click.view_arguments, output.session_state),
            agent_id,
            click.session_id,
        )
        if stale(view, text):
            return Reply(f"{CLICK_STALE} {text}", ephemeral=True, card=card)
        return Reply(text, card=card)

    return await take_turn(
        Turn(
            kind="click",
            agent_id=agent_id,
            platform=click.platform,
            session_id=click.session_id,
            user_id=clicker,
            event_id=click.event_id,
            run=run,
            announce="chat_click",
            details={"agent": agent_id, "tool": click.tool},
            read=read,
            offline_commands=help.offline_commands(agent_id, agent),
        )
    )
