"""``/state usage [agent]``: today's usage against the budget, for anyone, on their own scopes.

Not an admin-only command: what a person spends is theirs to see. The service routes
it before the admin check and decides whose usage it is: the caller's own user, this
conversation's session for the agent, and this channel. A raw session id (someone
else's conversation) stays an admin action within the admin's grant, and shows that
session and its channel by id. The numbers and
their wording are core's (``core.governance.budgets.model.usage_report``).
"""

from __future__ import annotations

from typing import Any

from bots.chat.replies import Reply
from core.governance.budgets.model import budget_of
from core.governance.budgets.report import usage_report

NO_STORE = "This agent keeps no stored state (it has no db), so its usage is not counted."
NO_BUDGET = "No usage budget is set for this agent, so its usage is not counted or limited."


async def usage_reply(
    agent: Any, *, session_id: str, user_id: str | None, channel: str | None, own: bool = True
) -> Reply:
    """Usage vs budget of ``session_id``, ``user_id`` and ``channel`` today (ephemeral).

    ``own``: the caller's own conversation ("this conversation", "you", "this channel");
    else (an admin naming a session id) the scopes are shown by their ids.
    """
    budget = budget_of(agent)
    if budget is None:
        return Reply(NO_BUDGET, ephemeral=True)
    if agent.db is None:
        return Reply(NO_STORE, ephemeral=True)
    report = await usage_report(
        agent.db, budget, session_id=session_id, user_id=user_id, channel=channel
    )
    return Reply(report.describe(for_chat=own), ephemeral=True)
