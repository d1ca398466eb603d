"""The Slack adapter's options, taken once from the neutral settings and Slack's own."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bots.adapters.slack.send import DEFAULT_RETRY_SECONDS
from bots.adapters.slack.settings import SlackSettings
from bots.settings import Settings


@dataclass(frozen=True, slots=True)
class SlackOptions:
    """How the adapter delivers and whom it answers (defaults match Settings')."""

    retry_seconds: float = DEFAULT_RETRY_SECONDS
    skip_others_mentions: bool = True
    shutdown_grace: float = 25.0
    stream_replies: bool = False
    stream_seconds: float = 1.0
    clock: Callable[[], float] = time.monotonic  # paces streamed edits; tests inject one

    @classmethod
    def from_settings(cls, settings: Settings, slack: SlackSettings) -> SlackOptions:
        """The options ``settings`` and ``slack`` configure."""
        return cls(
            retry_seconds=slack.statebot_slack_retry_seconds,
            skip_others_mentions=slack.statebot_slack_skip_others_mentions,
            shutdown_grace=settings.statebot_shutdown_grace,
            stream_replies=settings.statebot_stream_replies,
            stream_seconds=settings.statebot_stream_seconds,
        )
