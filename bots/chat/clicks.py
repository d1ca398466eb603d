"""Buttons on cards: a click runs its tool like a slash command and redraws the card.

The reply's card is the list as the run left it; its text is what the tool said.
"""

from __future__ import annotations

import structlog

from bots.chat import help
from bots.chat.cards import Click, placed, stale, tool_card
from bots.chat.context import ChatContext, origin
from bots.chat.decisions import ask_approval
from bots.chat.errors import guarded
from bots.chat.registry import AgentRegistry, tools_of
from bots.chat.replies import Reply
from bots.keys import channel_of_session, user_key
from bots.ops.logging import bind_event
from bots.ops.metrics import count_tool_errors, timed_run

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
    clicker = user_key(click.platform, click.workspace, click.user)
    with bind_event(
        platform=click.platform,
        session_id=click.session_id,
        user_id=clicker,
        event_id=click.event_id,
    ):
        agent_id = agents.id_of(click.agent_id)
        if agent_id is None:
            log.info("click_unknown", agent=click.agent_id, tool=click.tool)
            return Reply(CLICK_EXPIRED, ephemeral=True)
        agent = agents[agent_id]
        tools = tools_of(agent)
        if click.tool not in tools or click.view not in tools:
            log.info("click_unknown", agent=click.agent_id, tool=click.tool)
            return Reply(CLICK_EXPIRED, ephemeral=True)
        log.info("chat_click", agent=agent_id, tool=click.tool)
        view = tools[click.view]

        async def run() -> Reply:
            output = await agent.arun_tool(
                click.tool,
                click.arguments,
                session_id=click.session_id,
                user_id=clicker,
                # times typed into the add form are read in the clicker's timezone
                metadata=origin(
                    click.platform, click.event_id, channel_of_session(click.session_id)
                )
                | await context.user_tz(click.platform, click.workspace, click.user),
            )
            count_tool_errors(output, agent=agent_id)
            if output.is_paused:
                return ask_approval(agent_id, output, clicker)
            text = output.get_content_as_string() or "Done."
            card = placed(
                tool_card(view, click.view_arguments, output.session_state),
                agent_id,
                click.session_id,
            )
            if stale(view, text):
                return Reply(f"{CLICK_STALE} {text}", ephemeral=True, card=card)
            return Reply(text, card=card)

        return await guarded(
            timed_run(run, agent=agent_id, kind="click"),
            agent_id=agent_id,
            offline_commands=help.offline_commands(agent_id, agent),
        )
