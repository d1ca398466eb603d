"""Slack names for the web console: ``users.info`` and ``conversations.info`` through
the deployment's own bot token (``SLACK_BOT_TOKEN``), or each workspace's token from
the install flow's store (bots/web/names.py decides how the console uses them)."""

from __future__ import annotations

from bots.adapters.slack.names import SlackNames
from bots.adapters.slack.oauth import OAuthConfigError, SlackOAuth, build_oauth, oauth_configured
from bots.adapters.slack.send import web_client
from bots.adapters.slack.settings import SlackSettings
from bots.adapters.slack.traits import TRAITS
from bots.settings import Settings
from bots.web import WebConfigError
from bots.web.names import OfferedNames

__all__ = ["names_for", "names_of_bot"]


def names_for(settings: Settings, slack: SlackSettings) -> OfferedNames | None:
    """Slack names for ``statebot web``, when a bot token or the install flow is set;
    WebConfigError when the install flow is configured by halves."""
    if oauth_configured(slack):
        try:
            oauth = build_oauth(slack, settings.statebot_db_url)
        except OAuthConfigError as exc:
            raise WebConfigError(f"Slack names: {exc}") from None
        return OfferedNames(TRAITS.name, SlackNames(oauth.client_for), close=oauth.aclose)
    if slack.slack_bot_token is None:
        return None
    token = slack.slack_bot_token.get_secret_value()
    return OfferedNames(TRAITS.name, SlackNames(web_client(token, slack.slack_api_url)))


def names_of_bot(slack: SlackSettings, oauth: SlackOAuth | None) -> OfferedNames | None:
    """Slack names for the console the Slack HTTP process mounts: the bot's own tokens
    (its install flow, which the bot closes, or its bot token)."""
    if oauth is not None:
        return OfferedNames(TRAITS.name, SlackNames(oauth.client_for))
    if slack.slack_bot_token is None:
        return None
    token = slack.slack_bot_token.get_secret_value()
    return OfferedNames(TRAITS.name, SlackNames(web_client(token, slack.slack_api_url)))
