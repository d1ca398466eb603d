"""Settings from the environment: parsing, defaults and secrets. A platform's own
settings (``SlackSettings``) are read the same way as the neutral ``Settings``."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from bots.adapters.slack.settings import SlackSettings
from bots.cli.config import settings_classes
from bots.settings import EnvSettings, Settings

ENV_NAMES = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "SLACK_API_URL",
    "DISCORD_TOKEN",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "STATEBOT_MODEL",
    "REDIS_URL",
    "STATEBOT_DB_URL",
    "STATEBOT_ADMIN_IDS",
    "STATEBOT_DEFAULT_AGENT",
    "STATEBOT_CHANNEL_AGENTS",
    "STATEBOT_AGENT_SCOPES",
    "STATEBOT_LOG_FORMAT",
    "PORT",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from an environment without any of our variables."""
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)


def test_defaults() -> None:
    """Without variables: Slack's API, gpt-4o-mini, SQLite, taskboard, port 3000."""
    settings, slack = Settings(), SlackSettings()
    assert slack.slack_api_url == "https://slack.com/api/"
    assert settings.statebot_model == "gpt-4o-mini"
    assert settings.statebot_db_url == "sqlite:///statebot.db"
    assert settings.statebot_default_agent == "taskboard"
    assert slack.port == 3000
    assert settings.redis_url is None
    assert settings.statebot_admin_ids == frozenset()
    assert settings.model_configured is False


def test_comma_lists_and_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Admin ids are a comma list; channel agents and scopes are KEY=VALUE pairs."""
    monkeypatch.setenv("STATEBOT_ADMIN_IDS", "slack:T1:U1, discord:*:42,,slack:T1:U3")
    monkeypatch.setenv("STATEBOT_CHANNEL_AGENTS", "C123=taskboard, C456=shopping")
    monkeypatch.setenv("STATEBOT_AGENT_SCOPES", "taskboard=channel")
    settings = Settings()
    assert settings.statebot_admin_ids == {"slack:T1:U1", "discord:*:42", "slack:T1:U3"}
    assert settings.statebot_channel_agents == {"C123": "taskboard", "C456": "shopping"}
    assert settings.statebot_agent_scopes == {"taskboard": "channel"}


@pytest.mark.parametrize(
    ("name", "value", "settings_cls"),
    [
        ("STATEBOT_CHANNEL_AGENTS", "C123", Settings),
        ("STATEBOT_CHANNEL_AGENTS", "=taskboard", Settings),
        ("STATEBOT_AGENT_SCOPES", "taskboard=galaxy", Settings),
        ("STATEBOT_LOG_FORMAT", "xml", Settings),
        ("PORT", "http", SlackSettings),
    ],
)
def test_bad_values_fail_loudly(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, settings_cls: type[EnvSettings]
) -> None:
    """A malformed variable is a startup error naming it, not a silent default."""
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError, match=name.lower()):
        settings_cls()


@pytest.mark.parametrize("value", ["U456", "slack:U456", "slack::U456", "a:b:c:d"])
def test_admin_ids_must_be_full_user_keys(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """A bare or malformed admin id is a startup error that shows the full form."""
    monkeypatch.setenv("STATEBOT_ADMIN_IDS", f"slack:T1:U1,{value}")
    with pytest.raises(ValidationError, match="platform:workspace:user") as caught:
        Settings()
    assert "platform:*:user" in str(caught.value)


def test_admin_ids_are_canonical_user_keys() -> None:
    """Entries are stored as bots.keys builds user keys, so they match on equality."""
    settings = Settings(statebot_admin_ids=" slack:T1:U1 ,slack:T%3a1:U2")
    assert settings.statebot_admin_ids == {"slack:T1:U1", "slack:T%3A1:U2"}


def test_secrets_never_show_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokens are SecretStr: readable on purpose, hidden in repr and str."""
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-very-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    settings, slack = Settings(), SlackSettings()
    for shown in (repr(settings), str(settings), repr(slack), str(slack)):
        assert "very-secret" not in shown
    assert slack.slack_bot_token is not None
    assert slack.slack_bot_token.get_secret_value() == "xoxb-very-secret"
    assert settings.model_configured is True


def test_blank_values_count_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """`OPENAI_API_KEY=` (as compose files write it) means no key."""
    monkeypatch.setenv("OPENAI_API_KEY", "")
    monkeypatch.setenv("REDIS_URL", " ")
    settings = Settings()
    assert settings.openai_api_key is None
    assert settings.redis_url is None
    assert settings.model_configured is False


def test_base_url_alone_configures_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """An OpenAI-compatible server without a key (Ollama) counts as configured."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    assert Settings().model_configured is True


def test_log_format_defaults_to_json_off_a_terminal() -> None:
    """Under pytest stderr is not a TTY, so logs default to JSON."""
    assert Settings().statebot_log_format == "json"
    assert Settings(statebot_log_format="console").statebot_log_format == "console"


def test_dotenv_in_the_working_directory_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A .env in the working directory sets SLACK_BOT_TOKEN (cp deploy/.env.example .env)."""
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-from-file\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEBOT_ENV_FILE", raising=False)
    token = SlackSettings().slack_bot_token
    assert token is not None and token.get_secret_value() == "xoxb-from-file"


def test_environment_wins_over_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A variable set in the environment overrides the same one in .env."""
    (tmp_path / ".env").write_text("SLACK_BOT_TOKEN=xoxb-from-file\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATEBOT_ENV_FILE", raising=False)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-from-env")
    token = SlackSettings().slack_bot_token
    assert token is not None and token.get_secret_value() == "xoxb-from-env"


def test_statebot_env_file_names_another_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """STATEBOT_ENV_FILE points settings at another file; empty turns .env reading off."""
    (tmp_path / ".env").write_text("STATEBOT_MODEL=from-dotenv\n", encoding="utf-8")
    (tmp_path / "prod.env").write_text("STATEBOT_MODEL=from-prod\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STATEBOT_ENV_FILE", str(tmp_path / "prod.env"))
    assert Settings().statebot_model == "from-prod"
    monkeypatch.setenv("STATEBOT_ENV_FILE", "")
    assert Settings().statebot_model == "gpt-4o-mini"


def test_every_setting_has_a_description() -> None:
    """Each field (a platform's own too) carries the description the settings table shows."""
    missing = [
        name
        for cls in settings_classes()
        for name, field in cls.model_fields.items()
        if not field.description
    ]
    assert missing == []


def test_a_platforms_blank_values_count_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """`SLACK_BOT_TOKEN=` in a platform's own settings means unset, as in the neutral ones."""
    from bots.adapters.discord.settings import DiscordSettings

    monkeypatch.setenv("SLACK_BOT_TOKEN", "")
    monkeypatch.setenv("DISCORD_TOKEN", " ")
    assert SlackSettings().slack_bot_token is None
    assert DiscordSettings().discord_token is None
