"""``statebot telegram``: the click command, light to import.

``statebot --help`` builds every platform's command, so python-telegram-bot (an
optional extra, ``statebot[telegram]``) is imported only when the command runs; a
missing install is a one-line usage error saying what to install.
"""

from __future__ import annotations

from collections.abc import Mapping

import click

from bots.adapters.telegram.settings import TelegramSettings
from bots.app.cli_format import HELP_OPTIONS
from bots.app.option import app_option
from bots.chat.registry import ChatAgent
from bots.ops.logging import configure_logging
from bots.ops.startup import run_process
from bots.settings import Settings

__all__ = ["MISSING", "serve_blocking", "telegram_command"]

MISSING = "python-telegram-bot is not installed; install it with: pip install 'statebot[telegram]'"


def serve_blocking(settings: Settings, agents: Mapping[str, ChatAgent] | None) -> None:
    """Run the bot in this process until it is stopped."""
    try:
        from bots.adapters.telegram.cli import serve
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] in ("telegram", "aiolimiter"):
            raise click.UsageError(MISSING) from None
        raise
    configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
    run_process(serve(settings, TelegramSettings(), agents=agents), name="telegram")


@click.command("telegram", context_settings=HELP_OPTIONS)
@app_option
def telegram_command(agents: Mapping[str, ChatAgent] | None) -> None:
    """Run the Telegram bot (groups, forum topics, DMs, commands and keyboards)."""
    serve_blocking(Settings(), agents)
