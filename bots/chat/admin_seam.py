"""Where the admin commands plug into the chat pipeline, without the pipeline knowing them.

``bots.chat`` knows no governance: ``/state …`` commands and the Confirm / Cancel clicks
on admin questions go to the :class:`AdminCommands` the composition root hands the
service (``bots.admin.commands.StateCommands``, wired by ``bots.app.service``), so the
dependency points from the admin layer down to the chat layer and never back. Who may
decide a paused run is the admin policy's answer (``bots.admin.policy``), asked here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bots.chat.approvals import Decision
from bots.chat.replies import Reply
from bots.inbound import SlashCommand

__all__ = ["BUILTIN_COMMANDS", "PERSONAL_COMMANDS", "AdminCommands", "BuiltinCommand"]

#: commands about the caller's own data, answered by :meth:`AdminCommands.personal`
PERSONAL_COMMANDS = frozenset({"connect", "memory"})


@dataclass(frozen=True, slots=True)
class BuiltinCommand:
    """A command every platform offers beside one per agent: its name (no slash), a
    description of at most 100 characters (Discord's bound) and a usage hint."""

    name: str
    description: str
    usage: str


#: what each platform's command menu or manifest lists after the agents' commands; an
#: agent whose id is one of these names keeps answering mentions but gets no command
BUILTIN_COMMANDS = (
    BuiltinCommand(
        "state",
        "Your usage; admins: inspect, diff, restore, reset, erase stored state",
        "usage | history [n] | diff v1 v2 | restore vN | dump | reset [agent or session id] "
        "| erase @user",
    ),
    BuiltinCommand(
        "memory",
        "What I remember about you; forget one (admins: a user's)",
        "[forget N] | @user",
    ),
    BuiltinCommand(
        "connect",
        "Tool servers that act as you: list, connect (token in a DM), revoke",
        "[<server> [token]] | revoke <server>",
    ),
)


class AdminCommands(Protocol):
    """The admin side of one ``ChatService``: ``/state`` and admin questions' answers."""

    async def command(self, cmd: SlashCommand) -> Reply:
        """Answer one ``/state …`` command."""
        ...

    async def personal(self, cmd: SlashCommand) -> Reply:
        """Answer ``/connect …`` or ``/memory …`` (``PERSONAL_COMMANDS``): a person's own
        connections and memories."""
        ...

    async def decide(self, decision: Decision) -> Reply:
        """Apply a Confirm / Cancel click on an admin's restore or erase question."""
        ...

    def may_decide(self, decision: Decision) -> bool:
        """True when the clicker may approve or reject a paused run (its asker, or an admin)."""
        ...

    def owned_by_its_user(self, platform: str) -> None:
        """Make every user of ``platform`` admin of that platform's own sessions."""
        ...
