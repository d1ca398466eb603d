"""Telegram joined through the seam: one registry line, its traits, its settings in
`statebot config`, its command; python-telegram-bot only inside its folder."""

from __future__ import annotations

import sys

import click
import pytest
from click.testing import CliRunner

from bots.adapters import registry
from bots.adapters.telegram.bot import command_menu
from bots.adapters.telegram.command import MISSING
from bots.adapters.telegram.settings import TelegramSettings
from bots.app.retention import scope_of
from bots.chat.names import user_reference
from bots.chat.targets import target_from_session
from bots.cli.main import main


def test_it_is_one_registry_line_with_its_traits() -> None:
    """`statebot telegram` exists; the traits say DMs are positive chat ids, 4,096 chars."""
    adapter = registry.get("telegram")
    assert registry.BUILTIN["telegram"] == "bots.adapters.telegram.adapter"
    assert isinstance(adapter.command(), click.Command)
    assert adapter.traits.message_limit == 4096
    assert scope_of("telegram:7:111") == "dm" and scope_of("telegram:7:-1001") != "dm"
    assert target_from_session("telegram:7:-1001:77") == {
        "platform": "telegram",
        "workspace": "7",
        "channel": "-1001",
        "thread": "77",
    }
    # users are named by key in code, never by a tg://user mention that notifies them
    assert user_reference("telegram:7:111", platform="telegram", workspace="7") == (
        "`telegram:7:111`"
    )


def test_statebot_config_lists_its_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """TELEGRAM_BOT_TOKEN is shown masked with its source."""
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:secret")
    result = CliRunner().invoke(main, ["config"])
    assert result.exit_code == 0, result.output
    row = next(r for r in result.output.splitlines() if r.startswith("TELEGRAM_BOT_TOKEN"))
    assert "set (hidden)" in row and "123:secret" not in result.output


def test_without_a_token_it_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """No token: one usage line naming the variable; a webhook without its secret too."""
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    result = CliRunner().invoke(main, ["telegram"])
    assert result.exit_code == 2 and "TELEGRAM_BOT_TOKEN is not set" in result.output
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:secret")
    monkeypatch.setenv("TELEGRAM_WEBHOOK_URL", "https://bot.example.com/telegram")
    result = CliRunner().invoke(main, ["telegram"])
    assert result.exit_code == 2 and "TELEGRAM_WEBHOOK_SECRET is not" in result.output


def test_without_the_extra_it_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """python-telegram-bot missing: one usage line naming the extra, not a traceback."""
    for name in [m for m in sys.modules if m == "telegram" or m.startswith("telegram.")]:
        monkeypatch.delitem(sys.modules, name)
    for name in [m for m in sys.modules if m.startswith("bots.adapters.telegram.")]:
        if not _light(name):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "telegram", None)  # import telegram -> ImportError
    result = CliRunner().invoke(main, ["telegram"])
    assert result.exit_code == 2 and MISSING in result.output


def _light(name: str) -> bool:
    """The modules the registry loads (no SDK): they stay imported."""
    return name.rsplit(".", 1)[1] in ("adapter", "command", "settings", "traits")


def test_a_webhook_secret_telegram_refuses_is_refused() -> None:
    """Telegram takes 1-256 of A-Z a-z 0-9 _ -; anything else fails at start, by name."""
    with pytest.raises(ValueError, match="TELEGRAM_WEBHOOK_SECRET must be"):
        TelegramSettings(telegram_webhook_secret="has spaces")


def test_the_command_menu_skips_ids_telegram_refuses() -> None:
    """One command per agent Telegram accepts as a command name, then the built-ins."""
    menu = command_menu({"taskboard": object(), "shopping-flow": object(), "Notes": object()})
    assert [c.command for c in menu] == ["taskboard", "notes", "state", "memory", "connect"]
