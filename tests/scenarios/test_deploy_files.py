"""The deploy files agree with the code: processes, services and every setting."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from bots.cli.config import settings_classes
from bots.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
#: variables deploy/.env.example holds for compose.yaml's postgres service only
COMPOSE_ONLY = {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"}
#: every variable: the neutral settings and each registered platform's own
ALL_SETTINGS = {name.upper() for cls in settings_classes() for name in cls.model_fields}


def test_procfile_runs_slack_discord_and_snapshotter() -> None:
    """The Procfile declares exactly the four processes, each a statebot subcommand."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    assert lines == [
        "slack: statebot slack",
        "discord: statebot discord",
        "snapshotter: statebot snapshotter",
        "telegram: statebot telegram",
        "teams: statebot teams",
    ]
    assert {"slack", "discord", "telegram", "teams"} <= set(main.commands)


def test_env_example_lists_every_setting() -> None:
    """Every setting appears in deploy/.env.example (set, or commented out), nothing else.

    The POSTGRES_* variables are the exception: compose.yaml reads them, statebot not.
    """
    text = (ROOT / "deploy" / ".env.example").read_text()
    listed = set(re.findall(r"^(?:# )?([A-Z][A-Z0-9_]*)=", text, flags=re.MULTILINE))
    expected = ALL_SETTINGS
    assert expected <= listed, f"missing: {sorted(expected - listed)}"
    assert listed <= expected | COMPOSE_ONLY, f"unknown: {sorted(listed - expected)}"


def test_compose_runs_stores_bots_and_snapshotter() -> None:
    """compose.yaml has Redis, PostgreSQL, both bots and the snapshotter on one env file."""
    # read as text: PyYAML is not a project dependency, and the file is simple
    text = (ROOT / "deploy" / "compose.yaml").read_text()
    services_block = text.split("\nservices:\n", 1)[1].split("\nvolumes:\n", 1)[0]
    services = re.findall(r"^  ([a-z]+):$", services_block, flags=re.MULTILINE)
    assert services == ["redis", "postgres", "slack", "discord", "telegram", "snapshotter", "teams"]
    for name in ("slack", "discord", "telegram", "snapshotter", "teams"):
        assert f'command: ["statebot", "{name}"' in services_block
    assert "env_file: .env" in text and "<<: *statebot" in services_block
    assert "REDIS_URL: ${REDIS_URL:-redis://redis:6379/0}" in text
    assert "STATEBOT_DB_URL: ${STATEBOT_DB_URL:-postgresql+psycopg://" in text


def test_dockerfile_is_slim_and_unprivileged() -> None:
    """The image starts from python:3.11-slim, installs the package and drops root."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert dockerfile.startswith("#") and "FROM python:3.11-slim" in dockerfile
    assert "pip install --no-deps ." in dockerfile
    assert re.search(r"^USER statebot$", dockerfile, flags=re.MULTILINE)


def test_compose_redis_keeps_unsnapshotted_sessions() -> None:
    """The shipped Redis persists (AOF, fsync every second) and never evicts sessions."""
    from core.db.redis.eviction import eviction_problem

    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    command = compose["services"]["redis"]["command"]
    options = dict(zip(command[1::2], command[2::2], strict=True))
    assert options["--appendonly"] == "yes" and options["--appendfsync"] == "everysec"
    assert eviction_problem(options["--maxmemory-policy"]) is None


def _compose() -> dict[str, Any]:
    """deploy/compose.yaml, parsed."""
    data: dict[str, Any] = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    return data


def test_every_compose_service_has_a_healthcheck() -> None:
    """redis, postgres, both bots and the snapshotter each declare a healthcheck."""
    services = _compose()["services"]
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    # the statebot processes ask /readyz: Slack HTTP mode on PORT, the rest on the
    # health port compose gives them (Socket Mode, Discord and the snapshotter have no
    # HTTP server otherwise)
    assert "/readyz" in services["slack"]["healthcheck"]["test"][-1]
    for name in ("discord", "telegram", "snapshotter"):
        probe = services[name]["healthcheck"]["test"][-1]
        assert "/readyz" in probe and "STATEBOT_HEALTH_PORT" in probe
        assert services[name]["environment"]["STATEBOT_HEALTH_PORT"].startswith("${")


def test_compose_has_no_literal_passwords() -> None:
    """Passwords come from deploy/.env: no literal one in a URL or a *PASSWORD* entry."""
    text = (ROOT / "deploy" / "compose.yaml").read_text()
    urls = re.findall(r"://(.*?)@[a-z]", text)
    assert urls, "the PostgreSQL URL with its credentials was not found"
    for credentials in urls:
        # with every ${...} substitution removed, nothing may follow user name's ":"
        literal = credentials
        while re.search(r"\$\{[^{}]*\}", literal):
            literal = re.sub(r"\$\{[^{}]*\}", "", literal)
        assert literal.partition(":")[2] == "", f"literal password in {credentials!r}"
    postgres_env = _compose()["services"]["postgres"]["environment"]
    assert postgres_env["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")


def test_compose_environment_defers_to_env_file() -> None:
    """Bots read deploy/.env; compose's environment only supplies ${VAR:-default}s."""
    services = _compose()["services"]
    for name in ("slack", "discord", "snapshotter"):
        service = services[name]
        assert service["env_file"] == ".env"
        for variable, value in service["environment"].items():
            assert value.startswith(f"${{{variable}:-"), f"{name}: {variable} overrides .env"


def test_compose_substitutions_are_documented() -> None:
    """Every ${VAR} compose.yaml substitutes is a setting or a COMPOSE_ONLY variable."""
    lines = (ROOT / "deploy" / "compose.yaml").read_text().splitlines()
    text = "\n".join(line for line in lines if not line.lstrip().startswith("#"))
    used = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", text))
    known = ALL_SETTINGS | COMPOSE_ONLY
    assert used <= known, f"undocumented: {sorted(used - known)}"


def test_compose_config_is_accepted_when_docker_compose_exists(tmp_path: Path) -> None:
    """`docker compose config` accepts the file when the client has compose, else YAML loads."""
    services = {"redis", "postgres", "slack", "discord", "telegram", "snapshotter", "teams"}
    assert set(_compose()["services"]) == services
    docker = shutil.which("docker")
    has_compose = (
        docker is not None
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    )
    if has_compose:
        assert docker is not None
        env_file = tmp_path / ".env"
        env_file.write_text((ROOT / "deploy" / ".env.example").read_text())
        compose_file = tmp_path / "compose.yaml"
        compose_file.write_text((ROOT / "deploy" / "compose.yaml").read_text())
        result = subprocess.run(
            [docker, "compose", "-f", str(compose_file), "config", "--quiet"],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr


def test_dockerfile_installs_dependencies_before_the_code() -> None:
    """Only pyproject.toml is copied before the dependency install; code comes after."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copies = re.findall(r"^COPY (.+)$", dockerfile, flags=re.MULTILINE)
    assert copies[0] == "pyproject.toml ./"
    deps = dockerfile.index("pip install -r")
    assert deps < dockerfile.index("COPY core") < dockerfile.index("pip install --no-deps .")


def test_dockerignore_keeps_venv_git_caches_and_databases_out() -> None:
    """The build context leaves out .venv, .git, caches, *.db and .env files."""
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    for pattern in (".venv/", ".git/", "**/__pycache__/", ".mypy_cache/", "*.db", ".env"):
        assert pattern in ignored


def _manifest() -> dict[str, Any]:
    """deploy/slack-app-manifest.yaml, parsed."""
    data: dict[str, Any] = yaml.safe_load((ROOT / "deploy" / "slack-app-manifest.yaml").read_text())
    return data


def test_slack_manifest_commands_match_the_catalog() -> None:
    """The manifest's slash commands are one per ready agent plus the built-ins (/state,
    /memory, /connect), all to /slack/events."""
    from tools.catalog import AGENT_FACTORIES

    commands = _manifest()["features"]["slash_commands"]
    builtins = {"/state", "/memory", "/connect"}
    assert {c["command"] for c in commands} == {f"/{a}" for a in AGENT_FACTORIES} | builtins
    for command in commands:
        assert command["url"].endswith("/slack/events") and command["description"]


def test_slack_manifest_events_and_interactivity_match_the_listeners() -> None:
    """Subscribed events are those the app listens to; buttons need interactivity on."""
    import inspect

    from bots.adapters.slack import interactions, listeners

    source = inspect.getsource(listeners)
    assert 'app.event("app_mention")' in source and 'app.event("message")' in source
    # the install flow's uninstall events, answered by bolt's revocation listeners
    from bots.adapters.slack import server

    assert "enable_token_revocation_listeners()" in inspect.getsource(server)
    settings = _manifest()["settings"]
    events = set(settings["event_subscriptions"]["bot_events"])
    assert events == {
        "app_mention",
        "message.channels",
        "message.groups",
        "message.im",
        "message.mpim",
        "app_uninstalled",
        "tokens_revoked",
        "app_home_opened",
    }
    from bots.adapters.slack import home

    assert 'app.event("app_home_opened")' in inspect.getsource(home)
    scopes = set(_manifest()["oauth_config"]["scopes"]["bot"])
    # each message.* event needs its history scope, app_mention its read scope
    needed = {f"{e.split('.')[1]}:history" for e in events if e.startswith("message.")}
    assert needed | {"app_mentions:read", "chat:write", "commands"} <= scopes
    assert "register_interactions" in source and "block_actions" in inspect.getsource(interactions)
    assert settings["interactivity"]["is_enabled"] is True
    assert settings["interactivity"]["request_url"].endswith("/slack/events")
    assert settings["socket_mode_enabled"] is False
