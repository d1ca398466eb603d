"""ChatService: the platform-neutral front door every adapter (and the console) calls.

    reply = await service.handle_message(msg)   # free text -> agent.arun
    reply = await service.handle_command(cmd)   # /agent tool args -> agent.arun_tool

The service routes, keeps the registry and builds the keys; every run it starts goes
through the one turn pipeline (``bots.chat.turns``), built per kind: messages and
commands (``bots.chat.runs``), clicks (``bots.chat.clicks``), approval decisions
(``bots.chat.decisions``), scheduled runs (``bots.chat.scheduled``) and undo
(``bots.chat.undo``). Routing is ``bots.chat.routing``, keys ``bots.keys``, parsing
``bots.chat.commands``, ``/state`` the ``admin`` commands the composition root plugs in
(``bots.chat.admin_seam``); a run's names, timezone and origin come from
``bots.chat.context``.
Input that cannot be run (unknown agent or command, bad arguments, oversize text)
gets a clear reply and runs nothing, so it changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import structlog

from bots.chat import help
from bots.chat.admin_seam import PERSONAL_COMMANDS, AdminCommands
from bots.chat.approvals import Decision
from bots.chat.attachments import Fetch, Received, receive
from bots.chat.boards import board_note, noted
from bots.chat.cards import Click
from bots.chat.catch_up import CatchUp, EarlierMessages, catch_up_of
from bots.chat.clicks import run_click
from bots.chat.commands import CommandError, parse_command
from bots.chat.context import ChatContext
from bots.chat.decisions import run_decision
from bots.chat.help import command_error
from bots.chat.names import NameSource
from bots.chat.queued import QueueNotice
from bots.chat.registry import AgentRegistry, ChatAgent, scope_of, tools_of, turn_history_on
from bots.chat.replies import Reply
from bots.chat.routing import default_agent_for, route
from bots.chat.runs import command_turn, message_turn
from bots.chat.scheduled import run_scheduled
from bots.chat.schedules import Deliveries
from bots.chat.streaming import StreamSink
from bots.chat.turns import noted_reply, take_turn
from bots.chat.undo import NO_STORE as UNDO_NO_STORE
from bots.chat.undo import undo_turn, wants_undo
from bots.inbound import InboundMessage, SlashCommand
from bots.keys import SessionKeys, keys_for
from bots.ops.logging import bind_event
from bots.settings import Settings
from core.run.media_refs import attached_note
from core.schedule import Schedule

log = structlog.get_logger("bots.service")

TOO_LONG = (
    "That message is too long ({length:,} characters; the limit is {limit:,}). "
    "Nothing was run; please shorten it or split it up."
)
EMPTY = "Hi! Tell me what to do after the mention, e.g. `{agent} what is on my list?`. {commands}"


class ConfigError(ValueError):
    """The settings name an agent that is not registered."""


class ChatService:
    """Routes inbound messages and slash commands to the registered agents."""

    __slots__ = (
        "_agents",
        "_aliases",
        "_context",
        "_settings",
        "_state_commands",
        "deliveries",
    )

    #: the input prefix of a scheduled run that is a direct command (``/task_reminder 3``)
    COMMAND_PREFIX = "/"

    def __init__(
        self,
        agents: Mapping[str, ChatAgent],
        *,
        settings: Settings,
        admin: Callable[[ChatService], AdminCommands],
        aliases: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        if not agents:
            raise ConfigError("no agents registered")
        try:
            self._agents = AgentRegistry(agents)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self._aliases = {k: dict(v) for k, v in (aliases or {}).items()}
        self._settings = settings
        named = {"STATEBOT_DEFAULT_AGENT": settings.statebot_default_agent}
        named.update(
            {
                f"STATEBOT_CHANNEL_AGENTS[{c}]": a
                for c, a in settings.statebot_channel_agents.items()
            }
        )
        for where, agent_id in named.items():
            if self._agents.id_of(agent_id) != agent_id:  # settings name the exact id
                known = ", ".join(self._agents)
                raise ConfigError(f"{where}={agent_id!r} is not an agent (agents: {known})")
        for agent_id, agent in self._agents.items():
            scope_of(agent_id, agent, settings.statebot_agent_scopes)  # fail at startup
        self._context = ChatContext()
        # the composition root's admin commands (bots.app.service): chat knows no governance
        self._state_commands = admin(self)
        #: where scheduled replies can be posted from this process (adapters register)
        self.deliveries = Deliveries()
        turn_history_on(self._agents.values(), settings.statebot_history_runs)

    def owned_by_its_user(self, platform: str) -> None:
        """Make every user of ``platform`` admin of that platform's own sessions (console)."""
        self._state_commands.owned_by_its_user(platform)

    def use_names(self, platform: str, source: NameSource) -> None:
        """Resolve display names (and timezones, when it knows them) through ``source``."""
        self._context.use_names(platform, source)

    async def run_metadata(self, event: InboundMessage | SlashCommand) -> dict[str, Any]:
        """What a run learns of its chat context (``bots.chat.context``)."""
        return await self._context.run_metadata(event)

    async def handle_click(self, click: Click) -> Reply:
        """Run a card's button (or its add form) like a slash command (``bots.chat.clicks``)."""
        reply = await run_click(click, agents=self._agents, context=self._context)
        return self._say_board(click.agent_id, click.session_id, reply)

    async def handle_decision(self, decision: Decision) -> Reply:
        """Apply an Approve / Reject click (``bots.chat.decisions``)."""
        return await run_decision(decision, agents=self._agents, admin=self._state_commands)

    # -- lookups ------------------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """The settings this service was built with (adapters read their options here)."""
        return self._settings

    @property
    def agents(self) -> AgentRegistry:
        """The registry, by agent id (lookups ignore case)."""
        return self._agents

    def aliases(self, agent_id: str) -> Mapping[str, str]:
        """Command aliases of one agent."""
        return self._aliases.get(agent_id, {})

    def default_agent(self, channel: str) -> str:
        """The agent answering in ``channel`` when none is named."""
        return default_agent_for(
            channel,
            default_agent=self._settings.statebot_default_agent,
            channel_agents=self._settings.statebot_channel_agents,
        )

    def session_keys(self, agent_id: str, event: InboundMessage | SlashCommand) -> SessionKeys:
        """The session and user keys ``agent_id`` runs ``event`` under (its scope applied)."""
        scope = scope_of(agent_id, self._agents[agent_id], self._settings.statebot_agent_scopes)
        if scope == "thread":  # the conversation's own keys, built when the record was made
            return event.keys
        return SessionKeys(keys_for(event, scope).session_id, event.keys.user_id)

    def help_text(self, agent_id: str | None = None, *, prefix: str | None = None) -> str:
        """Help for one agent, or the overview of all of them."""
        if agent_id is None:
            return help.overview(self._agents)
        return help.agent_help(
            agent_id, self._agents[agent_id], self.aliases(agent_id), prefix=prefix
        )

    # -- free text ----------------------------------------------------------------------
    async def handle_message(
        self,
        msg: InboundMessage,
        *,
        agent_id: str | None = None,
        sink: StreamSink | None = None,
        notice: QueueNotice | None = None,
        earlier: EarlierMessages | None = None,
        fetch: Fetch | None = None,
    ) -> Reply | None:
        """Answer a message addressed to the bot; None when it is not addressed to it.

        Whether it is addressed, the thread a reply goes to and the conversation's keys
        come from the record (the adapter decided them); the agent's scope is applied here.

        ``agent_id`` forces the agent (the console's current agent); otherwise the
        text is routed (``@bot [agent] text``). With ``sink`` an agent's answer streams
        into it as it is written (``bots.chat.streaming``); the Reply is still the whole answer.
        ``notice`` is told if the run waits behind others (``bots.chat.queued``); ``earlier``
        fetches the thread's earlier messages, read once by the run that creates a
        thread-scoped session (``bots.chat.catch_up``). ``fetch`` downloads the message's
        attachments with the platform's credentials (``bots.chat.attachments``); without
        it they are not used, and the reply says so.
        """
        if not msg.addressed:  # decided once, by the adapter
            return None
        with bind_event(
            platform=msg.platform, session_id=None, user_id=msg.keys.user_id, event_id=msg.event_id
        ):
            refused = self._too_long(msg.text)
            if refused is not None:
                return refused
            if agent_id is None:
                picked = route(
                    msg.text,
                    channel=msg.channel,
                    agents=self._agents,
                    default_agent=self._settings.statebot_default_agent,
                    channel_agents=self._settings.statebot_channel_agents,
                )
                agent_id, text = picked.agent_id, picked.text
            else:
                text = msg.text.strip()
            received = Received()
            if msg.attachments:
                received = await receive(
                    msg.attachments,
                    fetch,
                    max_bytes=self._settings.statebot_max_file_bytes,
                    max_files=self._settings.statebot_max_files,
                )
            keys = self.session_keys(agent_id, msg)
            agent, settings = self._agents[agent_id], self._settings
            catch_up = catch_up_of(
                agent,
                scope_of(agent_id, agent, settings.statebot_agent_scopes),
                earlier,
                platform=msg.platform,
                workspace=msg.workspace,
                count=settings.statebot_catch_up,
                chars=settings.statebot_catch_up_chars,
            )
            return await self._ask(agent_id, text, msg, keys, sink, notice, catch_up, received)

    def _too_long(self, text: str, *, ephemeral: bool = False) -> Reply | None:
        limit = self._settings.statebot_max_message_chars
        if len(text) <= limit:
            return None
        log.info("input_too_long", length=len(text), limit=limit)
        return Reply(TOO_LONG.format(length=len(text), limit=limit), ephemeral=ephemeral)

    async def _ask(
        self,
        agent_id: str,
        text: str,
        msg: InboundMessage,
        keys: SessionKeys,
        sink: StreamSink | None = None,
        notice: QueueNotice | None = None,
        catch_up: CatchUp | None = None,
        received: Received | None = None,
    ) -> Reply:
        """The answer, headed by the note on attachments not used, whatever the outcome."""
        received = received or Received()
        if not text and (received.images or received.files):  # the run says what came
            text = attached_note([m.reference() for m in (*received.images, *received.files)])
        reply = await self._answer(agent_id, text, msg, keys, sink, notice, catch_up, received)
        return noted_reply(reply, received.note())

    async def _answer(
        self,
        agent_id: str,
        text: str,
        msg: InboundMessage,
        keys: SessionKeys,
        sink: StreamSink | None,
        notice: QueueNotice | None,
        catch_up: CatchUp | None,
        received: Received,
    ) -> Reply:
        agent = self._agents[agent_id]
        if not text:
            offline = help.offline_commands(agent_id, agent)
            return Reply(EMPTY.format(agent=agent_id, commands=f"Commands: {offline}"))
        if wants_undo(text, tools_of(agent), self.aliases(agent_id)):
            return await self._undo(agent_id, msg, keys)
        turn = message_turn(
            agent_id,
            agent,
            text,
            msg,
            keys,
            context=self._context,
            sink=sink,
            notice=notice,
            catch_up=catch_up,
            received=received,
        )
        return self._say_board(agent_id, keys.session_id, await take_turn(turn))

    def _say_board(self, agent_id: str, session_id: str, reply: Reply) -> Reply:
        """``reply``, saying which board it is when not the channel's (``bots.chat.boards``)."""
        agent = self._agents.get(agent_id)
        return reply if agent is None else noted(reply, board_note(agent, session_id))

    # -- scheduled runs -----------------------------------------------------------------
    def owner_of(self, schedule: Schedule) -> str | None:
        """The registered agent that runs ``schedule`` (by its owner id), or None."""
        for agent_id, agent in self._agents.items():
            if getattr(agent, "id", None) == schedule.owner_id:
                return agent_id
        return self._agents.id_of(schedule.owner_id or "")

    async def handle_scheduled(
        self, schedule: Schedule, *, target: dict[str, Any], note: str | None = None
    ) -> Reply:
        """Run a due schedule on its session, as a message or a command would run.

        An input starting with ``/`` is a direct command (``/task_reminder 3``), run
        without the model like a slash command; anything else is a message to the
        agent. Failures propagate: the scheduler retries with backoff, then drops the
        run with a logged error, so no error text is posted as if it were an answer.
        """
        agent_id = self.owner_of(schedule)
        if agent_id is None:
            raise ConfigError(f"schedule owner {schedule.owner_id!r} is not a registered agent")
        return await run_scheduled(
            agent_id,
            self._agents[agent_id],
            schedule,
            aliases=self.aliases(agent_id),
            target=target,
            note=note,
            command_prefix=self.COMMAND_PREFIX,
        )

    # -- slash commands -----------------------------------------------------------------
    async def handle_command(self, cmd: SlashCommand) -> Reply:
        """Answer ``/<agent> [tool args | help]`` or ``/state ...``."""
        command = cmd.command.strip().lstrip("/").lower()
        with bind_event(
            platform=cmd.platform, session_id=None, user_id=cmd.keys.user_id, event_id=cmd.event_id
        ):
            refused = self._too_long(cmd.text, ephemeral=True)
            if refused is not None:
                return refused
            if command == "state":
                return await self._state_commands.command(cmd)
            if command in PERSONAL_COMMANDS:  # /connect, /memory: the caller's own data
                return await self._state_commands.personal(cmd)
            agent_id = self._agents.id_of(command)
            if agent_id is None:
                known = ", ".join(f"/{a}" for a in self._agents)
                log.info("unknown_agent_command", command=command)
                return Reply(
                    f"Unknown command /{command}. Commands: {known}, /state, /memory, /connect.",
                    True,
                )
            return await self._tool(agent_id, cmd)

    async def _tool(self, agent_id: str, cmd: SlashCommand) -> Reply:
        agent = self._agents[agent_id]
        tools = tools_of(agent)
        aliases = self.aliases(agent_id)
        words = cmd.text.split(maxsplit=1)
        if not words or words[0].lower() in ("help", "?", "-h", "--help"):
            return Reply(self.help_text(agent_id), ephemeral=True)
        keys = self.session_keys(agent_id, cmd)
        if wants_undo(cmd.text, tools, aliases):
            return await self._undo(agent_id, cmd, keys)
        try:
            parsed = parse_command(cmd.text, tools, aliases)
        except CommandError as exc:
            log.info("bad_command", agent=agent_id, error=str(exc))
            return Reply(command_error(agent_id, agent, aliases, exc, cmd.text), ephemeral=True)
        turn = command_turn(agent_id, agent, parsed, tools, cmd, keys, context=self._context)
        return self._say_board(agent_id, keys.session_id, await take_turn(turn))

    async def _undo(
        self, agent_id: str, event: InboundMessage | SlashCommand, keys: SessionKeys
    ) -> Reply:
        """Take back the sender's last change in this conversation's session (bots.chat.undo)."""
        agent = self._agents[agent_id]
        db = agent.db
        if db is None:
            return Reply(UNDO_NO_STORE, ephemeral=True)
        turn = undo_turn(
            agent_id,
            db,
            keys,
            platform=event.platform,
            workspace=event.workspace,
            event_id=event.event_id,
            origin=lambda: self.run_metadata(event),
            offline_commands=help.offline_commands(agent_id, agent),
        )
        return self._say_board(agent_id, keys.session_id, await take_turn(turn))
