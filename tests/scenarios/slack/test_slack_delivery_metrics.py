"""A Slack reply that cannot be delivered is counted in the delivery failure metric."""

from __future__ import annotations

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import BOT_USER, app_mention

from bots.ops import metrics


async def test_a_refused_reply_increments_the_delivery_failures(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """chat.postMessage refusing the reply adds one to statebot_delivery_failures{slack}."""
    labels = {"platform": "slack"}
    before = metrics.REGISTRY.get_sample_value("statebot_delivery_failures_total", labels) or 0.0
    bot = await make_bot(["Here you go."])
    fake_slack.fail_with("chat.postMessage", "is_archived", times=2)
    await bot.event(app_mention(f"<@{BOT_USER}> hi"))
    await settle()
    after = metrics.REGISTRY.get_sample_value("statebot_delivery_failures_total", labels)
    assert after == before + 1
