"""One console conversation: turns a typed line into a reply (no terminal I/O here).

    /<tool or alias> args   run a tool of the current agent directly
    /<agent> <tool> args    run a tool of another agent
    /state                  the session state (JSON)
    /agent [NAME]           show or switch the current agent
    /help                   agents and commands
    /quit                   leave (so does end of input)
    anything else           free text to the current agent's model

Slash commands go through ChatService.handle_command, so they run with the same
hooks, validation and persistence as in Slack or Discord.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from bots.inbound import InboundMessage, SlashCommand
from bots.service import ChatService

PLATFORM = "console"
WORKSPACE = "local"
CONSOLE_COMMANDS = (
    "Console: /state shows the session state, /agent NAME switches agent, "
    "/help shows this, /quit leaves. Anything else is free text for the model."
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What to print (None: nothing) and whether to stop."""

    text: str | None
    quit: bool = False


class ConsoleSession:
    """The current agent and session of one console, and the line dispatcher."""

    __slots__ = ("agent_id", "service", "session", "user")

    def __init__(self, service: ChatService, *, agent_id: str, session: str, user: str) -> None:
        registered = service.agents.id_of(agent_id)
        if registered is None:
            raise ValueError(f"unknown agent {agent_id!r}; agents: {', '.join(service.agents)}")
        self.service = service
        self.agent_id = registered
        self.session = session
        self.user = user

    def _command(self, command: str, text: str) -> SlashCommand:
        return SlashCommand(
            platform=PLATFORM,
            workspace=WORKSPACE,
            channel=self.session,
            thread=None,
            user=self.user,
            command=command,
            text=text,
            event_id=uuid.uuid4().hex,
            is_dm=True,
        )

    def _message(self, text: str) -> InboundMessage:
        return InboundMessage(
            platform=PLATFORM,
            workspace=WORKSPACE,
            channel=self.session,
            thread=None,
            user=self.user,
            text=text,
            event_id=uuid.uuid4().hex,
            is_dm=True,
        )

    @property
    def session_id(self) -> str:
        """The session id the current agent runs under."""
        return self.service.session_keys(self.agent_id, self._command(self.agent_id, "")).session_id

    async def handle_line(self, line: str) -> Outcome:
        """Answer one typed line."""
        text = line.strip()
        if not text:
            return Outcome(None)
        if not text.startswith("/"):
            reply = await self.service.handle_message(self._message(text), agent_id=self.agent_id)
            return Outcome(reply.text if reply else None)
        word, _, rest = text[1:].partition(" ")
        word = word.lower()
        if word in ("quit", "exit", "q"):
            return Outcome(None, quit=True)
        if word in ("help", "?"):
            return Outcome(self.help())
        if word == "state":
            return Outcome(await self.state())
        if word == "agent":
            return Outcome(self.switch(rest.strip()))
        named = self.service.agents.id_of(word)
        if named is not None:
            reply = await self.service.handle_command(self._command(named, rest))
        else:
            reply = await self.service.handle_command(self._command(self.agent_id, text[1:]))
        return Outcome(reply.text)

    def help(self) -> str:
        """Agents, the current agent's commands, and the console's own commands."""
        return "\n\n".join(
            (
                self.service.help_text(),
                f"Current agent: {self.agent_id}. Its commands:\n"
                + self.service.help_text(self.agent_id, prefix="/"),
                CONSOLE_COMMANDS,
            )
        )

    async def state(self) -> str:
        """The current session's state as JSON."""
        agent = self.service.agents[self.agent_id]
        state = await agent.aget_session_state(self.session_id)
        body = json.dumps(state, indent=2, sort_keys=True, ensure_ascii=False)
        return f"Session {self.session_id} ({self.agent_id}):\n{body}"

    def switch(self, name: str) -> str:
        """Switch the current agent (or say which one it is)."""
        if not name:
            return f"Current agent: {self.agent_id}. Agents: {', '.join(self.service.agents)}."
        named = self.service.agents.id_of(name)
        if named is None:
            return f"Unknown agent {name!r}. Agents: {', '.join(self.service.agents)}."
        self.agent_id = named
        return f"Now talking to {self.agent_id}."
