"""Approve / Reject: the click that resumes a paused run once.

An admin's restore / erase question is answered by the admin commands the composition
root plugged in (``bots.chat.admin_seam``); any other question by its asker or an admin.
The resumed run goes through the one turn pipeline (``bots.chat.turns``).
"""

from __future__ import annotations

import structlog

from bots.chat import help
from bots.chat.admin_seam import AdminCommands
from bots.chat.approvals import ALREADY, DECIDED, EXPIRED, NOT_YOURS, Decision
from bots.chat.context import origin
from bots.chat.names import user_reference
from bots.chat.registry import AgentRegistry
from bots.chat.replies import Reply
from bots.chat.turns import Turn, take_turn
from bots.keys import channel_of_session
from bots.ops.logging import bind_event
from core.exceptions import RunError
from core.run.output import RunOutput, content_as_text

log = structlog.get_logger("bots.service")

__all__ = ["run_decision"]


async def run_decision(
    decision: Decision, *, agents: AgentRegistry, admin: AdminCommands
) -> Reply:
    """Apply an Approve / Reject click: resume the paused run once, for its asker or an admin.

    Ephemeral replies (not yours, already handled, expired) change nothing.
    """
    wanted = decision.approval
    clicker = decision.clicker
    with bind_event(  # refusals are logged with the click's ids too
        platform=decision.platform,
        session_id=wanted.session_id,
        user_id=clicker,
        event_id=decision.event_id,
    ):
        if wanted.action:  # an admin's restore / erase question (bots.admin.confirm)
            return await admin.decide(decision)
        if not admin.may_decide(decision):  # its asker or an admin (bots.admin.policy)
            log.info("approval_refused", run_id=wanted.run_id)
            return Reply(NOT_YOURS, ephemeral=True)
        agent = agents.get(wanted.agent_id)
        if agent is None or not hasattr(agent, "acontinue_run"):
            return Reply(EXPIRED, ephemeral=True)
    ids = list(wanted.call_ids)
    resume = agent.acontinue_run

    async def run() -> RunOutput | Reply:
        try:
            output: RunOutput = await resume(
                wanted.run_id,
                approved=ids if decision.approve else [],
                rejected=[] if decision.approve else ids,
                session_id=wanted.session_id,
                metadata=origin(
                    decision.platform, decision.event_id, channel_of_session(wanted.session_id)
                ),
            )
        except RunError as exc:
            gone = "not in this session's history" in str(exc)
            log.info("approval_stale", run_id=wanted.run_id, expired=gone)
            return Reply(EXPIRED if gone else ALREADY, ephemeral=True)
        return output

    def read(output: RunOutput) -> Reply:
        # the clicker is named the platform's way (its traits), as every reply names people
        who = user_reference(clicker, platform=decision.platform, workspace=decision.workspace)
        done = DECIDED[decision.approve].format(who=who)
        return Reply(f"{done}\n{content_as_text(output.content) or 'Done.'}")

    return await take_turn(
        Turn(
            kind="decision",
            agent_id=wanted.agent_id,
            platform=decision.platform,
            session_id=wanted.session_id,
            user_id=clicker,
            event_id=decision.event_id,
            run=run,
            announce="approval_decided",
            details={"run_id": wanted.run_id, "approve": decision.approve},
            read=read,
            asked_by=wanted.requester,  # a run paused again stays its asker's question
            offline_commands=help.offline_commands(wanted.agent_id, agent),
        )
    )
