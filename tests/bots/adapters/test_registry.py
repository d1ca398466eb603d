"""The adapters' registry: every built-in platform by name, its traits known, clear errors."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from bots.adapters import registry
from bots.adapters.base import Adapter, OffersWebSignIn
from bots.cli.main import main
from bots.platforms import PlatformTraits, traits_for

BUILT_IN = ("slack", "discord", "console")


def test_the_registry_finds_each_built_in_platform() -> None:
    """slack, discord and console are found by name, in their lines' order, traits and all."""
    assert registry.names()[:3] == BUILT_IN
    for name in BUILT_IN:
        adapter: Adapter = registry.get(name)
        assert adapter.name == name == adapter.traits.name
        assert traits_for(name) is adapter.traits
        assert isinstance(adapter.command(), click.Command)


def test_statebot_has_a_command_per_platform() -> None:
    """`statebot <name>` is each registered platform's own command."""
    for adapter in registry.adapters():
        assert main.get_command(click.Context(main), adapter.name) is adapter.command()


def test_an_unknown_platform_is_one_line_naming_the_known_ones() -> None:
    """Asking for a platform nobody registered says which ones exist."""
    with pytest.raises(registry.UnknownPlatformError) as raised:
        registry.get("irc")
    message = str(raised.value)
    assert "\n" not in message and "'irc'" in message
    assert "slack, discord, console" in message
    assert isinstance(raised.value, ValueError)  # bots.serve's documented error


def test_traits_must_name_the_adapters_platform() -> None:
    """An adapter carrying another platform's traits is refused, not half-registered."""
    slack = registry.get("slack")

    class Mislabelled:
        name = "mislabelled"
        traits = slack.traits
        settings_class = None
        serve_options = frozenset[str]()

        def command(self) -> click.Command:
            return click.Command("mislabelled")

        def serve(self, agents: object, *, settings: object, **options: object) -> None:
            raise AssertionError("never served")

    with pytest.raises(ValueError, match="same platform"):
        registry.register(Mislabelled())  # type: ignore[arg-type]
    assert "mislabelled" not in registry.names() and traits_for("mislabelled") is None


def test_the_built_in_traits() -> None:
    """What shared modules learn from each platform's traits (once written as `if`s)."""
    slack, discord, console = (traits_for(name) for name in BUILT_IN)
    assert isinstance(slack, PlatformTraits) and isinstance(discord, PlatformTraits)
    assert isinstance(console, PlatformTraits)
    assert (slack.message_limit, discord.message_limit, console.message_limit) == (3000, 2000, None)
    assert slack.is_dm_channel("T1", "D123") and not slack.is_dm_channel("T1", "C123")
    assert discord.is_dm_channel("dm", "42") and not discord.is_dm_channel("G1", "42")
    assert not console.is_dm_channel("local", "default")
    assert slack.mention("U0ANA0001") == "<@U0ANA0001>" and slack.mention("ana") is None
    assert discord.mention("1234") == "<@1234>" and discord.mention("U1") is None
    assert console.mention("ana`x") == "@ana'x"
    assert [t.reply_placement for t in (slack, discord, console)] == [
        "thread",
        "channel",
        "inline",
    ]


def test_only_slack_offers_a_web_sign_in() -> None:
    """Signing in to the web console is an optional capability of an adapter."""
    offering = [a.name for a in registry.adapters() if isinstance(a, OffersWebSignIn)]
    assert offering == ["slack"]


def test_importing_bots_loads_no_platform() -> None:
    """`import bots` stays cheap: no adapter, no platform SDK until the registry is asked."""
    code = (
        "import sys, bots\n"
        "platform = ('bots.adapters', 'slack_', 'discord', 'telegram')\n"
        "loaded = [m for m in sys.modules if m.startswith(platform)]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
