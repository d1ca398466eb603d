"""The Bot API client: python-telegram-bot's ``ExtBot``, flood control, the command menu.

``retry_after`` is honoured by the library's ``AIORateLimiter``: a 429 pauses every
request for the seconds Telegram names, then the request is tried again (up to
:data:`RETRIES` times); the limiter also keeps within Telegram's documented rates
(30 messages a second overall, 20 a minute per group). The command menu
(``setMyCommands``) lists one command per agent and ``/state``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

import structlog
from telegram import BotCommand
from telegram.ext import AIORateLimiter, ExtBot

from bots.adapters.telegram.parse import BotIdentity
from bots.chat.admin_seam import BUILTIN_COMMANDS

log = structlog.get_logger(__name__)

__all__ = ["RETRIES", "command_menu", "make_bot", "publish_commands"]

#: times a request refused with 429 is tried again after its retry_after
RETRIES = 3
_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
BUILTIN_NAMES = frozenset(c.name for c in BUILTIN_COMMANDS)


def make_bot(token: str, api_url: str) -> ExtBot[Any]:
    """A client of the Bot API at ``api_url`` (Telegram's, or a self-hosted server)."""
    # the library's documented opt-in to durations as timedelta (its next major's
    # default); without it every 429 the rate limiter handles warns of the change
    os.environ.setdefault("PTB_TIMEDELTA", "true")
    return ExtBot(
        token,
        base_url=f"{api_url.rstrip('/')}/bot",
        base_file_url=f"{api_url.rstrip('/')}/file/bot",
        rate_limiter=AIORateLimiter(max_retries=RETRIES),
    )


async def identity_of(bot: ExtBot[Any]) -> BotIdentity:
    """Who the bot is (``getMe``, done by ``initialize``)."""
    await bot.initialize()
    return BotIdentity(id=bot.id, username=bot.username)


def command_menu(agents: Mapping[str, Any]) -> list[BotCommand]:
    """One command per agent whose id Telegram accepts as a command, then the built-ins.

    Telegram takes 1-32 lower-case ``a-z0-9_`` characters; another id is skipped with a
    warning (the agent still answers mentions: ``@bot agent text``).
    """
    commands = []
    for agent_id, agent in agents.items():
        name = agent_id.lower()
        if not _COMMAND_NAME.match(name) or name in BUILTIN_NAMES:
            log.warning("telegram_command_name_invalid", platform="telegram", agent=agent_id)
            continue
        description = getattr(agent, "description", None) or f"Ask the {agent_id} agent"
        commands.append(BotCommand(name, str(description)[:256]))
    commands += [BotCommand(c.name, c.description) for c in BUILTIN_COMMANDS]
    return commands


async def publish_commands(bot: ExtBot[Any], agents: Mapping[str, Any]) -> None:
    """``setMyCommands``: the menu Telegram shows when a user types ``/``."""
    menu = command_menu(agents)
    await bot.set_my_commands(menu)
    log.info("telegram_commands_published", platform="telegram", count=len(menu))
