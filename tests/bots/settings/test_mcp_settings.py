"""STATEBOT_MCP_SERVERS: JSON or a file naming MCP servers; bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from bots.cli.config import effective_settings
from bots.settings import Settings
from bots.settings.mcp import McpServer, parse_mcp_servers

SERVERS = {
    "github": {
        "command": "npx",
        "args": ["-y", "server-github"],
        "env": {"GITHUB_TOKEN": "ghp_secret"},
        "agents": ["taskboard"],
    },
    "docs": {
        "url": "https://mcp.example.com/mcp",
        "headers": {"Authorization": "Bearer hidden"},
        "include_tools": ["search"],
        "timeout_seconds": 5,
    },
}


def test_json_in_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variable's JSON becomes one McpServer per name, agents defaulting to all."""
    monkeypatch.setenv("STATEBOT_MCP_SERVERS", json.dumps(SERVERS))
    github, docs = Settings().statebot_mcp_servers
    assert github == McpServer(
        name="github",
        command="npx",
        args=("-y", "server-github"),
        env={"GITHUB_TOKEN": "ghp_secret"},
        agents=("taskboard",),
    )
    assert docs.url == "https://mcp.example.com/mcp" and docs.every_agent
    assert docs.include_tools == ("search",) and docs.timeout_seconds == 5


def test_a_file_and_the_shared_mcpservers_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path names a JSON file; the ``mcpServers`` wrapper other clients use is accepted."""
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": SERVERS}), encoding="utf-8")
    monkeypatch.setenv("STATEBOT_MCP_SERVERS", str(path))
    assert [s.name for s in Settings().statebot_mcp_servers] == ["github", "docs"]


def test_unset_or_blank_is_no_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing set, or an empty value, configures no server."""
    monkeypatch.delenv("STATEBOT_MCP_SERVERS", raising=False)
    assert Settings().statebot_mcp_servers == ()
    monkeypatch.setenv("STATEBOT_MCP_SERVERS", " ")
    assert Settings().statebot_mcp_servers == ()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{not json", "STATEBOT_MCP_SERVERS: the value is not valid JSON: "),
        ("/nowhere/mcp.json", "STATEBOT_MCP_SERVERS: cannot read the file '/nowhere/mcp.json': "),
        ("[1, 2]", "STATEBOT_MCP_SERVERS: expected a JSON object of server name to settings"),
        ('{"a": 1}', "STATEBOT_MCP_SERVERS: server 'a': expected an object of settings"),
        (
            '{"a": {"command": "x", "url": "http://h/mcp"}}',
            "STATEBOT_MCP_SERVERS: server 'a': give either command (stdio) or url",
        ),
        ('{"a": {"command": "x", "cmd": "y"}}', "STATEBOT_MCP_SERVERS: server 'a': cmd: unknown"),
        ('{"a": {"url": "ftp://h"}}', "STATEBOT_MCP_SERVERS: server 'a': url: String should"),
        (
            '{"a b": {"command": "x"}}',
            "STATEBOT_MCP_SERVERS: server 'a b': name: String should match pattern",
        ),
        (
            '{"a": {"command": "x", "timeout_seconds": 0}}',
            "STATEBOT_MCP_SERVERS: server 'a': timeout_seconds: Input should be greater than 0",
        ),
    ],
)
def test_bad_input_is_one_line(value: str, message: str) -> None:
    """Each mistake is one line naming the variable, the server and the field."""
    with pytest.raises(ValueError) as refused:
        parse_mcp_servers(value)
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)


def test_settings_refuse_bad_input_with_that_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings() fails at start with the same sentence."""
    monkeypatch.setenv("STATEBOT_MCP_SERVERS", '{"a": {}}')
    with pytest.raises(ValidationError, match="STATEBOT_MCP_SERVERS: server 'a': give either"):
        Settings()


def test_config_shows_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """``statebot config`` shows names, targets and agents, never env or header values."""
    monkeypatch.setenv("STATEBOT_MCP_SERVERS", json.dumps(SERVERS))
    shown = dict((name, value) for name, value, _ in effective_settings(Settings()))
    line = shown["STATEBOT_MCP_SERVERS"]
    assert "github (command npx; agents taskboard)" in line
    assert "docs (url https://mcp.example.com/mcp; agents *)" in line
    assert "ghp_secret" not in line and "hidden" not in line


def test_a_command_stops_with_that_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """``statebot config`` (any command) stops on a bad value with one line, no traceback."""
    from click.testing import CliRunner

    from bots.cli.main import main

    monkeypatch.setenv("STATEBOT_MCP_SERVERS", '{"a": {"command": "x", "cmd": 1}}')
    result = CliRunner().invoke(main, ["config"])
    assert result.exit_code != 0
    assert result.output == (
        "Error: STATEBOT_MCP_SERVERS (from the environment): server 'a': cmd: unknown setting\n"
    )
