"""One console conversation: turns a typed line into a reply (no terminal I/O here).

    /attach PATH … [-- text]  give local files or images to the model with the text
    /<tool or alias> args   run a tool of the current agent directly
    /<agent> <tool> args    run a tool of another agent
    /state                  the session state (JSON)
    /state reset            delete the session's state and history (under its lease)
    /state history|diff|restore|usage …   as in chat (restore asks: /confirm or /cancel)
    /undo                   take back your own last change in this session
    /agent [NAME]           show or switch the current agent
    /session [NAME]         show or switch the current session
    /sessions               this console's stored sessions and their agents
    /help                   agents and commands
    /quit                   leave (so does end of input)
    anything else           free text to the current agent's model

Slash commands go through ChatService.handle_command, so they run with the same
hooks, validation and persistence as in Slack or Discord. ``/state reset`` and
``/sessions`` go through ``core.governance``, the path ``statebot state`` and chat admins
use; whoever runs the console owns its store, so no admin id is needed here: the
other ``/state`` actions go to the service as chat's do, with the console's user as the
admin of console sessions. A restore's Confirm / Cancel buttons are the ``/confirm``
and ``/cancel`` lines, applied through the same ``handle_decision`` as a click.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path

from bots.adapters.console.editing import forget_last_line
from bots.adapters.console.files import (
    FILES_DIR,
    attachment_of,
    console_fetch,
    parse_attach,
    save_media,
)
from bots.admin.parse import StateUsageError, parse_state
from bots.chat.admin_seam import PERSONAL_COMMANDS
from bots.chat.approvals import Approval, Decision
from bots.chat.queued import QueueNotice
from bots.chat.service import ChatService
from bots.inbound import Attachment, InboundMessage, SlashCommand
from bots.keys import key_prefix, unescape
from core.exceptions import SessionNotFoundError
from core.governance.sessions import delete_session, list_sessions

PLATFORM = "console"
WORKSPACE = "local"
CONSOLE_COMMANDS = (
    "Console: /state shows the session state, /state reset clears it, /state history "
    "[n] | diff v1 v2 | restore vN | usage work as in chat (restore asks: /confirm or "
    "/cancel), /undo takes back your last change, /attach PATH … [-- text] gives files or "
    "images to the model, /agent NAME "
    "switches agent, /session NAME switches session, /sessions lists them, /memory "
    "lists what is remembered about you (/memory forget N), /connect SERVER TOKEN "
    "connects a server that acts as you, /help shows this, /quit leaves. Anything else "
    "is free text for the model."
)
STATE_USAGE = (
    "usage: /state [reset] — show the session state, or delete it and its history; "
    "/state history [n] | diff v1 v2 | restore vN | usage"
)
#: what the console's "buttons" are: a line to type
ASK_CONFIRM = "Type /confirm to go ahead or /cancel."
NOTHING_PENDING = "Nothing is waiting for a confirmation."
_SESSIONS_LIMIT = 200  # newest sessions of the whole store, then this console's


@dataclass(frozen=True, slots=True)
class Outcome:
    """What to print (None: nothing) and whether to stop."""

    text: str | None
    quit: bool = False


class ConsoleSession:
    """The current agent and session of one console, and the line dispatcher."""

    __slots__ = ("agent_id", "files_dir", "notice", "pending", "service", "session", "user")

    def __init__(
        self,
        service: ChatService,
        *,
        agent_id: str,
        session: str,
        user: str,
        files_dir: Path = FILES_DIR,
    ) -> None:
        registered = service.agents.id_of(agent_id)
        if registered is None:
            raise ValueError(f"unknown agent {agent_id!r}; agents: {', '.join(service.agents)}")
        self.service = service
        self.agent_id = registered
        self.session = session
        self.user = user
        #: the question a restore asked, until /confirm or /cancel
        self.pending: Approval | None = None
        #: where images and files that tools return are saved
        self.files_dir = files_dir
        #: told when a typed line waits behind another run of the session (the loop sets it)
        self.notice: QueueNotice | None = None
        service.owned_by_its_user(PLATFORM)

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

    def _message(self, text: str, attachments: tuple[Attachment, ...] = ()) -> InboundMessage:
        return InboundMessage(
            platform=PLATFORM,
            workspace=WORKSPACE,
            channel=self.session,
            thread=None,
            user=self.user,
            text=text,
            event_id=uuid.uuid4().hex,
            is_dm=True,
            addressed=True,  # every line typed into the console is for the bot
            attachments=attachments,
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
            return await self.ask(self._message(text))
        word, _, rest = text[1:].partition(" ")
        word = word.lower()
        if word == "attach":
            try:
                paths, question = parse_attach(rest)
            except ValueError as exc:
                return Outcome(str(exc))
            attached = tuple(attachment_of(path) for path in paths)
            return await self.ask(self._message(question, attached))
        if word in ("quit", "exit", "q"):
            return Outcome(None, quit=True)
        if word in ("help", "?"):
            return Outcome(self.help())
        if word == "state":
            return Outcome(await self.state(rest.strip()))
        if word in ("confirm", "cancel"):
            return Outcome(await self.decide(word == "confirm"))
        if word == "agent":
            return Outcome(self.switch(rest.strip()))
        if word == "session":
            return Outcome(self.switch_session(rest.strip()))
        if word == "sessions":
            return Outcome(await self.sessions())
        if word in PERSONAL_COMMANDS:  # /connect, /memory: the caller's own data
            if word == "connect" and len(rest.split()) > 1:
                forget_last_line()  # a pasted token stays out of ~/.statebot_history
            return Outcome((await self.service.handle_command(self._command(word, rest))).text)
        named = self.service.agents.id_of(word)
        if named is not None:
            reply = await self.service.handle_command(self._command(named, rest))
        else:
            reply = await self.service.handle_command(self._command(self.agent_id, text[1:]))
        return Outcome(reply.text)

    async def ask(self, msg: InboundMessage) -> Outcome:
        """Free text (with attachments) to the model; files a tool returns are saved."""
        reply = await self.service.handle_message(
            msg, agent_id=self.agent_id, fetch=console_fetch, notice=self.notice
        )
        if reply is None:
            return Outcome(None)
        try:
            saved = save_media(reply.media, self.files_dir)
        except OSError as exc:  # the answer stands; the files could not be written
            return Outcome(f"{reply.text}\n(Could not save the attached files: {exc})")
        lines = [reply.text, *(f"Saved {path}" for path in saved)]
        return Outcome("\n".join(lines))

    @staticmethod
    def goes_to_model(line: str) -> bool:
        """Whether :meth:`handle_line` gives ``line`` to the model (free text, /attach)."""
        text = line.strip()
        return bool(text) and (not text.startswith("/") or text.lower().startswith("/attach "))

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

    async def state(self, text: str = "") -> str:
        """The current session's state as JSON, ``reset``, or a chat ``/state`` action."""
        action = text.lower()
        if action == "reset":
            return await self.reset()
        if action not in ("", "dump"):
            return await self.admin(text)
        agent = self.service.agents[self.agent_id]
        state = await agent.aget_session_state(self.session_id)
        body = json.dumps(state, indent=2, sort_keys=True, ensure_ascii=False)
        return f"Session {self.session_id} ({self.agent_id}):\n{body}"

    async def admin(self, text: str) -> str:
        """A chat ``/state`` action on the current agent's session; a question waits."""
        try:
            request = parse_state(text, platform=PLATFORM)
        except StateUsageError as exc:
            return str(exc)
        if request.target is None and request.action != "erase":
            text = f"{text} {self.agent_id}"  # the console's agent, not the channel default
        reply = await self.service.handle_command(self._command("state", text))
        if reply.approval is None:
            return reply.text
        self.pending = reply.approval
        return f"{reply.text}\n{ASK_CONFIRM}"

    async def decide(self, confirm: bool) -> str:
        """Answer the waiting question, as a click on its Confirm / Cancel button would."""
        if self.pending is None:
            return NOTHING_PENDING
        approval, self.pending = self.pending, None
        decision = Decision(PLATFORM, WORKSPACE, self.user, confirm, approval, uuid.uuid4().hex)
        return (await self.service.handle_decision(decision)).text

    async def reset(self) -> str:
        """Delete the current session's state and history, hot and durable, under its lease."""
        db = self.service.agents[self.agent_id].db
        if db is None:
            return "This agent keeps no stored state (it has no db); nothing to reset."
        try:
            await delete_session(db, self.session_id)
        except SessionNotFoundError:
            return f"Session {self.session_id} has no stored state; nothing to reset."
        return f"Session {self.session_id} reset: its next run starts from the default state."

    async def sessions(self) -> str:
        """This console's stored sessions, newest first, with the agent that owns each."""
        db = self.service.agents[self.agent_id].db
        if db is None:
            return "This agent keeps no stored state (it has no db), so no sessions are listed."
        prefix = key_prefix(PLATFORM, WORKSPACE)
        found = [
            s
            for s in await list_sessions(db, limit=_SESSIONS_LIMIT)
            if s["session_id"].startswith(prefix)
        ]
        lines = []
        for summary in found:
            name = unescape(summary["session_id"][len(prefix) :])
            mark = "*" if name == self.session else " "
            lines.append(f"{mark} {name} ({summary['owner_id'] or 'unknown agent'})")
        if not any(line.startswith("*") for line in lines):
            # the current session is where the next line runs, stored or not yet
            lines.insert(0, f"* {self.session} ({self.agent_id}, nothing stored yet)")
        return "Sessions (* current):\n" + "\n".join(lines)

    def switch_session(self, name: str) -> str:
        """Switch the current session (or say which one it is)."""
        if not name:
            return f"Current session: {self.session}. /sessions lists the stored ones."
        if any(ch.isspace() for ch in name):
            return f"A session name has no spaces; {name!r} was not used."
        self.session = name
        return f"Now in session {self.session} (agent {self.agent_id})."

    def switch(self, name: str) -> str:
        """Switch the current agent (or say which one it is)."""
        if not name:
            return f"Current agent: {self.agent_id}. Agents: {', '.join(self.service.agents)}."
        named = self.service.agents.id_of(name)
        if named is None:
            return f"Unknown agent {name!r}. Agents: {', '.join(self.service.agents)}."
        self.agent_id = named
        return f"Now talking to {self.agent_id}."
