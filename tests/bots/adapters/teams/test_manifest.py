"""deploy/teams-app/manifest.json is `statebot manifest --platform teams` for the ready agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.adapters.teams.manifest import PLACEHOLDER_ID, teams_manifest
from bots.cli.main import main
from tools.catalog import create_agents

COMMITTED = Path(__file__).resolve().parents[4] / "deploy" / "teams-app" / "manifest.json"


def test_the_committed_manifest_is_the_generated_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEAMS_APP_ID", raising=False)
    result = CliRunner().invoke(main, ["manifest", "--platform", "teams"], prog_name="statebot")
    assert result.exit_code == 0, result.output
    assert result.output == COMMITTED.read_text(encoding="utf-8")


def test_it_lists_one_command_per_agent_and_the_builtins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAMS_APP_ID", "c9e8c047-2a74-40a2-b28a-b162d5f5327c")
    agents = create_agents()
    manifest = json.loads(teams_manifest(agents, url="https://bots.example.org/").text)
    [bot] = manifest["bots"]
    assert manifest["id"] == bot["botId"] == "c9e8c047-2a74-40a2-b28a-b162d5f5327c"
    titles = [c["title"] for c in bot["commandLists"][0]["commands"]]
    assert titles == [f"/{a.lower()}" for a in agents] + ["/state", "/memory", "/connect"]
    assert manifest["validDomains"] == ["bots.example.org"]
    assert PLACEHOLDER_ID not in json.dumps(manifest)


def test_socket_mode_is_refused_for_teams() -> None:
    result = CliRunner().invoke(main, ["manifest", "--platform", "teams", "--socket"])
    assert result.exit_code == 2 and "Teams has no socket mode" in result.output
