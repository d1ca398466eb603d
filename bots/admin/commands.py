"""``/state …`` routed: whose grant, which session, then the action (``bots.admin``).

The service hands every ``/state`` command and every Confirm / Cancel click on an
admin question here. The decisions made once, in this module:

- **Who.** Decided by the service's :class:`bots.admin.policy.AdminPolicy`: a user
  matching ``STATEBOT_ADMIN_IDS``, or any user of a platform whose users own its
  store (the console); the same policy says who may decide a paused run.
- **Usage is not admin-only.** ``/state usage`` is routed before the admin check:
  anyone may see their own conversation's, their own and their channel's usage;
  a raw session id (someone else's conversation) needs a grant covering it.
- **Which session.** No target: this conversation's session for the channel's
  agent; an agent name: that agent's session here (its scope applied); a target
  with ``:``: that exact session id (its store is the channel agent's).
- **Which stores an erase reaches.** Every store the agents use, once each.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import structlog

from bots.admin import actions as admin
from bots.admin.confirm import NO_STORE, Confirmations, ask_erase
from bots.admin.connect import connect_command, per_user_servers
from bots.admin.memory import memory_command
from bots.admin.parse import SELF_SERVICE, USAGE, StateRequest, StateUsageError, parse_state
from bots.admin.policy import AdminPolicy
from bots.admin.usage import usage_reply
from bots.admins import AdminGrant
from bots.chat.approvals import Decision
from bots.chat.errors import guarded
from bots.chat.names import user_reference
from bots.chat.replies import Reply
from bots.inbound import SlashCommand
from bots.keys import channel_of_session, user_key
from bots.ops.logging import bind_event
from core.db.base import BaseDb

if TYPE_CHECKING:  # the service owns this helper
    from bots.chat.service import ChatService

log = structlog.get_logger("bots.admin")


class StateCommands:
    """``/state`` commands and admin confirmations of one ChatService."""

    __slots__ = ("_confirmations", "_service", "policy")

    def __init__(self, service: ChatService) -> None:
        self._service = service
        self._confirmations = Confirmations()
        #: who may do what (``bots.admin.policy``), for /state and for approvals alike
        self.policy = AdminPolicy(service.settings.statebot_admin_ids)

    async def command(self, cmd: SlashCommand) -> Reply:
        """``/state …``: admins (their grant's scope), except ``usage`` on one's own session."""
        keys = cmd.keys
        grant = self.policy.grant(cmd.platform, cmd.workspace, cmd.user, team=cmd.team)
        with bind_event(
            platform=cmd.platform, session_id=None, user_id=keys.user_id, event_id=cmd.event_id
        ):
            try:
                request = parse_state(cmd.text, platform=cmd.platform)
            except StateUsageError as exc:
                if grant is None:
                    action = (cmd.text.split() or ["none"])[0]
                    return admin.refuse(action, user_id=keys.user_id, cmd=cmd)
                return Reply(str(exc), ephemeral=True)
            if grant is None and request.action not in SELF_SERVICE:
                return admin.refuse(request.action, user_id=keys.user_id, cmd=cmd)
            if request.action == "erase":
                assert grant is not None
                return await self._ask_erase(cmd, request, grant)
            target = request.target or self._service.default_agent(cmd.channel)
            if ":" in target:  # a raw session id; its owner's store is the shared one
                if grant is None:  # others' sessions are for admins
                    return admin.refuse(request.action, user_id=keys.user_id, cmd=cmd)
                agent_id, session_id = self._service.default_agent(cmd.channel), target
            else:
                agent_id = self._service.agents.id_of(target) or ""
                if not agent_id:
                    return Reply(f"Unknown agent {target!r}. {USAGE}", ephemeral=True)
                session_id = self._service.session_keys(agent_id, cmd).session_id
        with bind_event(
            platform=cmd.platform,
            session_id=session_id,
            user_id=keys.user_id,
            event_id=cmd.event_id,
        ):
            agent = self._service.agents[agent_id]

            async def run() -> Reply:
                if request.action == "usage":
                    if grant is not None:
                        refused = admin.out_of_scope(
                            grant, session_id, action="usage", user_id=keys.user_id
                        )
                        if refused is not None:
                            return refused
                    own = request.target is None or ":" not in request.target
                    used = "state_usage" if own else "admin_command"  # others': an admin use
                    log.info(used, action="usage", target_session=session_id, actor=keys.user_id)
                    return await usage_reply(
                        agent,
                        session_id=session_id,
                        user_id=keys.user_id if own else None,
                        channel=channel_of_session(session_id),
                        own=own,
                    )
                if agent.db is None:
                    return Reply(NO_STORE, ephemeral=True)
                assert grant is not None
                return await admin.run_admin(
                    request,
                    agent.db,
                    session_id,
                    grant=grant,
                    user_id=keys.user_id,
                    agent_id=agent_id,
                    platform=cmd.platform,
                    workspace=cmd.workspace,
                )

            reply = await guarded(run, agent_id=agent_id, offline_commands="")
            return replace(reply, ephemeral=True)

    async def _ask_erase(
        self, cmd: SlashCommand, request: StateRequest, grant: AdminGrant
    ) -> Reply:
        """The Confirm / Cancel question for erasing the mentioned user of this workspace."""
        actor = user_key(cmd.platform, cmd.workspace, cmd.user)
        target = user_key(cmd.platform, cmd.workspace, request.user)
        refused = admin.out_of_scope(grant, target, action="erase", user_id=actor)
        if refused is not None:
            return refused
        log.info("admin_command", action="erase", target_user=target, actor=actor)
        who = user_reference(target, platform=cmd.platform, workspace=cmd.workspace)
        agent_id = self._service.default_agent(cmd.channel)
        return ask_erase(agent_id, target, requester=actor, who=who)

    async def personal(self, cmd: SlashCommand) -> Reply:
        """``/connect …`` (``bots.admin.connect``) or ``/memory …`` (``bots.admin.memory``)."""
        with bind_event(
            platform=cmd.platform, session_id=None, user_id=cmd.keys.user_id, event_id=cmd.event_id
        ):
            agent_id = self._service.default_agent(cmd.channel)
            if cmd.command.strip().lstrip("/").lower() == "connect":
                servers = per_user_servers(self._service.agents.values())
                run = lambda: connect_command(cmd, servers)  # noqa: E731
            else:
                stores = self._stores(agent_id)
                run = lambda: memory_command(cmd, stores, self.policy)  # noqa: E731
            reply = await guarded(run, agent_id=agent_id, offline_commands="")
            return replace(reply, ephemeral=True)

    def owned_by_its_user(self, platform: str) -> None:
        """Make every user of ``platform`` admin of that platform's own sessions.

        The console's rule (``bots.admin.policy``): whoever runs it owns its store.
        """
        self.policy.owned_by_its_user(platform)

    def may_decide(self, decision: Decision) -> bool:
        """True when the clicker may approve or reject a paused run (``bots.admin.policy``)."""
        return self.policy.may_decide(decision)

    async def decide(self, decision: Decision) -> Reply:
        """A Confirm / Cancel click on a restore or erase question (ephemeral outcome)."""
        wanted = decision.approval
        grant = self.policy.grant(
            decision.platform, decision.workspace, decision.user, team=decision.team
        )
        stores = self._stores(self._service.agents.id_of(wanted.agent_id) or "")
        reply = await guarded(
            lambda: self._confirmations.decide(decision, stores, grant),
            agent_id=wanted.agent_id,
            offline_commands="",
        )
        return replace(reply, ephemeral=True)

    def _stores(self, first: str) -> list[BaseDb]:
        """Agent ``first``'s store, then every other store the agents use, once each."""
        found: list[BaseDb] = []
        for agent_id in (first, *self._service.agents):
            agent = self._service.agents.get(agent_id)
            db = getattr(agent, "db", None)
            if db is not None and all(db is not seen for seen in found):
                found.append(db)
        return found
