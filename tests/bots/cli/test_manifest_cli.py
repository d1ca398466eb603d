"""`statebot manifest` prints the Slack manifest of the agents actually served, and the
committed deploy/slack-app-manifest.yaml is its output for the ready agents."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from bots.adapters.slack.manifest import slack_manifest
from bots.app.build import build_app, load_app_agents
from bots.cli.main import main
from bots.inbound import SlashCommand
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from tools.catalog import COMMAND_ALIASES, create_agents

ROOT = Path(__file__).resolve().parents[3]
STATEBOT = Path(sys.executable).parent / "statebot"
APP = '''
from core.agent import Agent

def add_note(session_state, text: str) -> str:
    """Add a note."""
    session_state.setdefault("notes", []).append(text)
    return "noted"

agents = {
    "notes": Agent(name="notes", tools=[add_note], description="The team's notes"),
    "Standup": Agent(name="standup"),
    "has space": Agent(name="x"),
}
'''


def _commands(text: str) -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(text)
    return {c["command"]: c for c in data["features"]["slash_commands"]}


def test_committed_manifest_is_the_generated_one() -> None:
    """deploy/slack-app-manifest.yaml is exactly `statebot manifest` for the ready agents."""
    committed = (ROOT / "deploy" / "slack-app-manifest.yaml").read_text()
    assert committed == slack_manifest(create_agents(), COMMAND_ALIASES).text
    result = CliRunner().invoke(main, ["manifest"], prog_name="statebot")
    assert result.exit_code == 0, result.output
    assert result.output == committed


def test_manifest_of_an_app_declares_every_command_the_bot_answers(tmp_path: Path) -> None:
    """With --app, each agent the service registers has its command (case folded), each
    declared command reaches an agent or /state, and an id Slack cannot take is named."""
    (tmp_path / "team_app.py").write_text(APP)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
    result = subprocess.run(
        [str(STATEBOT), "manifest", "--app", "team_app:agents", "--url", "https://x.test/"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    declared = _commands(result.stdout)
    assert set(declared) == {"/notes", "/standup", "/state", "/memory", "/connect"}
    assert declared["/notes"]["description"] == "The team's notes"
    assert declared["/notes"]["usage_hint"] == "add_note | undo | help"
    assert {c["url"] for c in declared.values()} == {"https://x.test/slack/events"}
    assert "agent 'has space' has no slash command" in result.stderr

    sys.path.insert(0, str(tmp_path))
    try:
        agents = load_app_agents("team_app:agents")
    finally:
        sys.path.remove(str(tmp_path))
    settings = Settings(openai_api_key=None, openai_base_url=None, redis_url=None)
    service = build_app(settings, db=InMemoryDb(), agents=agents).service
    served = {f"/{agent_id.lower()}" for agent_id in service.agents}
    assert set(declared) == (served - {"/has space"}) | {"/state", "/memory", "/connect"}

    async def answer(command: str) -> str:
        cmd = SlashCommand(
            platform="slack",
            workspace="T1",
            channel="C1",
            thread=None,
            user="U1",
            command=command,
            text="help",
            event_id=f"e{command}",
        )
        return (await service.handle_command(cmd)).text

    for command in declared:
        assert not asyncio.run(answer(command)).startswith("Unknown command")


def test_manifest_socket_mode_and_a_bad_url() -> None:
    """--socket turns Socket Mode on; a URL that is not http(s) exits 2 naming it."""
    runner = CliRunner()
    socket = runner.invoke(main, ["manifest", "--socket"], prog_name="statebot")
    assert yaml.safe_load(socket.output)["settings"]["socket_mode_enabled"] is True
    bad = runner.invoke(main, ["manifest", "--url", "bot.example.com"], prog_name="statebot")
    assert bad.exit_code == 2 and "'bot.example.com' is not an http(s) URL" in bad.output
    none = runner.invoke(main, ["manifest", "--platform", "discord"], prog_name="statebot")
    assert none.exit_code == 2
    assert "'discord' has no app manifest (platforms with one: slack, teams)" in none.output


def _listed(doc: str, lead: str) -> set[str]:
    """The `/commands` in the paragraph of docs/chat-setup.md that starts at ``lead``."""
    text = (ROOT / "docs" / doc).read_text()
    paragraph = text[text.index(lead) :].split("\n\n", 1)[0]
    return set(re.findall(r"`(/[a-z][a-z_-]*)`", paragraph))


def test_chat_setup_lists_the_slack_commands_of_the_manifest() -> None:
    """docs/chat-setup.md names exactly the commands the generated manifest declares."""
    committed = _commands((ROOT / "deploy" / "slack-app-manifest.yaml").read_text())
    assert _listed("chat-setup.md", "It declares one slash command") == set(committed)


def test_chat_setup_lists_the_discord_commands_published() -> None:
    """docs/chat-setup.md names exactly the app commands the Discord bot publishes."""
    import discord
    from discord import app_commands

    from bots.adapters.discord.commands import add_commands
    from bots.ops.drain import Drain

    settings = Settings(openai_api_key=None, openai_base_url=None, redis_url=None)
    service = build_app(settings, db=InMemoryDb()).service

    async def published() -> set[str]:
        client = discord.Client(intents=discord.Intents.none())
        tree: app_commands.CommandTree[Any] = app_commands.CommandTree(client)
        add_commands(tree, service, Drain())
        await client.close()
        return {f"/{command.name}" for command in tree.get_commands()}

    names = asyncio.run(published())
    assert len(names) == 7  # four agents, then /state, /memory, /connect
    assert _listed("chat-setup.md", "On start it publishes") == names
