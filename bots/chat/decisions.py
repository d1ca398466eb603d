"""Approve / Reject: a paused run's question, and the click that resumes it once.

An admin's restore / erase question is answered by the admin commands the composition
root plugged in (``bots.chat.admin_seam``); any other question by its asker or an admin.
"""

from __future__ import annotations

from typing import Any

import structlog

from bots.admins import grant_for
from bots.chat import help
from bots.chat.admin_seam import AdminCommands
from bots.chat.approvals import ALREADY, DECIDED, EXPIRED, NOT_YOURS, Approval, Decision
from bots.chat.context import origin
from bots.chat.errors import guarded
from bots.chat.registry import AgentRegistry
from bots.chat.replies import Reply
from bots.keys import channel_of_session, user_key
from bots.ops.logging import bind_event
from bots.ops.metrics import timed_run
from bots.settings import Settings
from core.exceptions import RunError
from core.run.output import content_as_text

log = structlog.get_logger("bots.service")

__all__ = ["ask_approval", "run_decision"]


def ask_approval(agent_id: str, output: Any, requester: str) -> Reply:
    """The reply for a paused run: the question, and the buttons that answer it."""
    approval = Approval.of(agent_id, output, requester)
    return Reply(approval.prompt, approval=approval)


async def run_decision(
    decision: Decision, *, agents: AgentRegistry, settings: Settings, admin: AdminCommands
) -> Reply:
    """Apply an Approve / Reject click: resume the paused run once, for its asker or an admin.

    Ephemeral replies (not yours, already handled, expired) change nothing.
    """
    wanted = decision.approval
    clicker = user_key(decision.platform, decision.workspace, decision.user)
    with bind_event(
        platform=decision.platform,
        session_id=wanted.session_id,
        user_id=clicker,
        event_id=decision.event_id,
    ):
        if wanted.action:  # an admin's restore / erase question (bots.admin.confirm)
            return await admin.decide(decision)
        allowed = clicker == wanted.requester or grant_for(
            decision.platform,
            decision.workspace,
            decision.user,
            settings.statebot_admin_ids,
        )
        if not allowed:
            log.info("approval_refused", run_id=wanted.run_id)
            return Reply(NOT_YOURS, ephemeral=True)
        agent = agents.get(wanted.agent_id)
        if agent is None or not hasattr(agent, "acontinue_run"):
            return Reply(EXPIRED, ephemeral=True)
        log.info("approval_decided", run_id=wanted.run_id, approve=decision.approve)
        ids = list(wanted.call_ids)

        async def run() -> Reply:
            try:
                output = await agent.acontinue_run(
                    wanted.run_id,
                    approved=ids if decision.approve else [],
                    rejected=[] if decision.approve else ids,
                    session_id=wanted.session_id,
                    metadata=origin(
                        decision.platform,
                        decision.event_id,
                        channel_of_session(wanted.session_id),
                    ),
                )
            except RunError as exc:
                gone = "not in this session's history" in str(exc)
                log.info("approval_stale", run_id=wanted.run_id, expired=gone)
                return Reply(EXPIRED if gone else ALREADY, ephemeral=True)
            if output.is_paused:
                return ask_approval(wanted.agent_id, output, wanted.requester)
            done = DECIDED[decision.approve].format(who=f"<@{decision.user}>")
            text = content_as_text(output.content) or "Done."
            return Reply(f"{done}\n{text}")

        return await guarded(
            timed_run(run, agent=wanted.agent_id, kind="decision"),
            agent_id=wanted.agent_id,
            offline_commands=help.offline_commands(wanted.agent_id, agent),
        )
