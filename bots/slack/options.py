"""The Slack adapter's own settings, taken from :class:`bots.settings.Settings` once."""

from __future__ import annotations

from dataclasses import dataclass

from bots.settings import Settings
from bots.slack.send import DEFAULT_RETRY_SECONDS


@dataclass(frozen=True, slots=True)
class SlackOptions:
    """How the adapter delivers and whom it answers (defaults match Settings')."""

    retry_seconds: float = DEFAULT_RETRY_SECONDS
    skip_others_mentions: bool = True
    shutdown_grace: float = 25.0

    @classmethod
    def from_settings(cls, settings: Settings) -> SlackOptions:
        """The options ``settings`` configure."""
        return cls(
            retry_seconds=settings.statebot_slack_retry_seconds,
            skip_others_mentions=settings.statebot_slack_skip_others_mentions,
            shutdown_grace=settings.statebot_shutdown_grace,
        )
