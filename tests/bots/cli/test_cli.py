"""CLI conventions of ``statebot``: -h, --version, help on every option, ``config``."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from bots.cli.config import settings_table
from bots.cli.main import main

DOCS = Path(__file__).resolve().parents[3] / "docs" / "chat-setup.md"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer .env or token leaks in; the working directory is empty."""
    monkeypatch.chdir(tmp_path)
    # set, then removed: monkeypatch restores what `--env-file` writes into os.environ
    monkeypatch.setenv("STATEBOT_ENV_FILE", "")
    monkeypatch.delenv("STATEBOT_ENV_FILE")
    for name in ("SLACK_BOT_TOKEN", "REDIS_URL", "STATEBOT_DB_URL"):
        monkeypatch.delenv(name, raising=False)


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*path, name))
        else:
            found.append((*path, name))
    return found


def _command(path: tuple[str, ...]) -> click.Command:
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


@pytest.mark.parametrize("path", _commands(main), ids=lambda p: " ".join(p) or "statebot")
def test_dash_h_is_help_everywhere(path: tuple[str, ...]) -> None:
    """`-h` prints the same help as `--help` on every command, run alone or under main."""
    alone = CliRunner().invoke(_command(path), ["-h"])  # first: click caches the help option
    assert alone.exit_code == 0, alone.output
    short = CliRunner().invoke(main, [*path, "-h"])
    long = CliRunner().invoke(main, [*path, "--help"])
    assert short.exit_code == 0, short.output
    assert short.output == long.output and "Usage:" in short.output


@pytest.mark.parametrize("path", _commands(main), ids=lambda p: " ".join(p) or "statebot")
def test_every_option_has_help(path: tuple[str, ...]) -> None:
    """Every option of every command says what it does in --help."""
    bare = [
        "/".join(p.opts)
        for p in _command(path).params
        if isinstance(p, click.Option) and not p.help
    ]
    assert bare == []


def test_version_comes_from_package_metadata() -> None:
    """`statebot --version` prints the installed package version."""
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert version("statebot") in result.output


def test_config_markdown_table_is_the_one_in_the_docs() -> None:
    """docs/chat-setup.md carries exactly the table `statebot config --markdown` prints."""
    result = CliRunner().invoke(main, ["config", "--markdown"])
    assert result.exit_code == 0
    assert result.output == settings_table() + "\n"
    assert settings_table() in DOCS.read_text(encoding="utf-8")


def test_config_table_names_every_variable() -> None:
    """The generated table has one row per setting, by its environment variable name."""
    table = settings_table()
    for name in ("SLACK_BOT_TOKEN", "STATEBOT_DB_URL", "PORT", "STATEBOT_REDIS_TTL"):
        assert re.search(rf"^\| `{name}` \|", table, re.MULTILINE), name


def test_config_masks_secrets_and_names_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`statebot config` masks secrets and says default / .env / environment per value."""
    (tmp_path / ".env").write_text(
        "SLACK_BOT_TOKEN=xoxb-secret-1234\nSTATEBOT_MODEL=from-file\n", encoding="utf-8"
    )
    monkeypatch.setenv("STATEBOT_DB_URL", "postgresql://u:hunter2@db/x")
    result = CliRunner().invoke(main, ["config"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "xoxb-secret-1234" not in out and "hunter2" not in out
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert ".env" in lines["SLACK_BOT_TOKEN"] and "set" in lines["SLACK_BOT_TOKEN"]
    assert "from-file" in lines["STATEBOT_MODEL"] and ".env" in lines["STATEBOT_MODEL"]
    assert "environment" in lines["STATEBOT_DB_URL"]
    assert "default" in lines["PORT"] and "3000" in lines["PORT"]


def test_env_file_option_points_at_another_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`statebot --env-file F config` reads F instead of ./.env."""
    other = tmp_path / "prod.env"
    other.write_text("STATEBOT_MODEL=from-prod\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["--env-file", str(other), "config"])
    assert result.exit_code == 0, result.output
    assert "from-prod" in result.output


def test_missing_env_file_is_a_clear_error(tmp_path: Path) -> None:
    """A --env-file that does not exist is refused, naming the file."""
    result = CliRunner().invoke(main, ["--env-file", str(tmp_path / "nope.env"), "config"])
    assert result.exit_code == 2 and "nope.env" in result.output
