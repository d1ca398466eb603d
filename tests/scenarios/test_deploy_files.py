"""The deploy files agree with the code: processes, services and every setting."""

from __future__ import annotations

import re
from pathlib import Path

from bots.cli import main
from bots.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def test_procfile_runs_slack_discord_and_snapshotter() -> None:
    """The Procfile declares exactly the three processes, each a statebot subcommand."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    assert lines == [
        "slack: statebot slack",
        "discord: statebot discord",
        "snapshotter: statebot snapshotter",
    ]
    assert {"slack", "discord"} <= set(main.commands)


def test_env_example_lists_every_setting() -> None:
    """Every environment variable Settings reads appears in deploy/.env.example."""
    text = (ROOT / "deploy" / ".env.example").read_text()
    listed = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", text, flags=re.MULTILINE))
    expected = {name.upper() for name in Settings.model_fields}
    assert expected <= listed, f"missing: {sorted(expected - listed)}"
    assert listed <= expected, f"unknown: {sorted(listed - expected)}"


def test_compose_runs_stores_bots_and_snapshotter() -> None:
    """compose.yaml has Redis, PostgreSQL, both bots and the snapshotter on one env file."""
    # read as text: PyYAML is not a project dependency, and the file is simple
    text = (ROOT / "deploy" / "compose.yaml").read_text()
    services_block = text.split("\nservices:\n", 1)[1].split("\nvolumes:\n", 1)[0]
    services = re.findall(r"^  ([a-z]+):$", services_block, flags=re.MULTILINE)
    assert services == ["redis", "postgres", "slack", "discord", "snapshotter"]
    for name in ("slack", "discord", "snapshotter"):
        assert f'command: ["statebot", "{name}"' in services_block
    assert "env_file: .env" in text and "<<: *statebot" in services_block
    assert "REDIS_URL: redis://redis:6379/0" in text
    assert "STATEBOT_DB_URL: postgresql+psycopg://" in text


def test_dockerfile_is_slim_and_unprivileged() -> None:
    """The image starts from python:3.11-slim, installs the package and drops root."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert dockerfile.startswith("#") and "FROM python:3.11-slim" in dockerfile
    assert "pip install ." in dockerfile
    assert re.search(r"^USER statebot$", dockerfile, flags=re.MULTILINE)


def test_compose_redis_keeps_unsnapshotted_sessions() -> None:
    """The shipped Redis persists (AOF, fsync every second) and never evicts sessions."""
    import yaml

    from core.db.redis.eviction import eviction_problem

    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    command = compose["services"]["redis"]["command"]
    options = dict(zip(command[1::2], command[2::2], strict=True))
    assert options["--appendonly"] == "yes" and options["--appendfsync"] == "everysec"
    assert eviction_problem(options["--maxmemory-policy"]) is None
