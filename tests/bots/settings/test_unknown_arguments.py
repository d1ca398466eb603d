"""An argument a settings class does not have is refused, naming the class that has it;
variables of the environment and ``.env`` that are not its own stay ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.adapters.discord.settings import DiscordSettings
from bots.adapters.slack.settings import SlackSettings
from bots.settings import Settings


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: Settings(slack_bot_token="xoxb-1"),
            "slack_bot_token is a SlackSettings field, not a Settings one",
        ),
        (
            lambda: Settings(discord_token="d-1"),
            "discord_token is a DiscordSettings field, not a Settings one",
        ),
        (
            lambda: SlackSettings(statebot_admin_ids="slack:T1:U1"),
            "statebot_admin_ids is a Settings field, not a SlackSettings one",
        ),
        (lambda: DiscordSettings(slack_bot_token="x"), "slack_bot_token is a SlackSettings"),
        (lambda: Settings(redis_ulr="redis://"), "redis_ulr is not a Settings field"),
    ],
)
def test_an_argument_of_no_field_is_refused(build: object, message: str) -> None:
    """One line naming the argument, the class that owns it and the class asked."""
    with pytest.raises(TypeError) as refused:
        build()  # type: ignore[operator]
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


def test_arguments_of_its_own_fields_are_taken_in_any_case() -> None:
    """Field names match as the variables do, without regard to case."""
    assert Settings(STATEBOT_MODEL="m1").statebot_model == "m1"
    token = SlackSettings(slack_bot_token="xoxb-1").slack_bot_token
    assert token is not None and token.get_secret_value() == "xoxb-1"


def test_a_subclass_owner_is_not_named_for_its_own_base() -> None:
    """A class derived from Settings is kin, not the owner of a field Settings lacks."""

    class Extended(Settings):
        extra_option: str = "x"

    with pytest.raises(TypeError, match=r"^extra_option is not a Settings field$"):
        Settings(extra_option="y")
    assert Extended(extra_option="y").extra_option == "y"


def test_others_variables_in_the_environment_and_dotenv_stay_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each class reads its own variables: Slack's, Discord's and unrelated ones in the
    environment or the .env file break none of the others."""
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        "SLACK_BOT_TOKEN=xoxb-file\nDISCORD_TOKEN=d-file\nSOMETHING_ELSE=1\nSTATEBOT_MODEL=m2\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("STATEBOT_ENV_FILE", str(dotenv))
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "s-env")
    monkeypatch.setenv("UNRELATED_TOOL_SETTING", "x")
    assert Settings().statebot_model == "m2"
    slack = SlackSettings()
    assert slack.slack_bot_token is not None
    assert slack.slack_bot_token.get_secret_value() == "xoxb-file"
    discord = DiscordSettings()
    assert discord.discord_token is not None
    assert discord.discord_token.get_secret_value() == "d-file"
