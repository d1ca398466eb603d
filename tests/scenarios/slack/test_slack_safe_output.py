"""Safe, formatted Slack output: no live broadcasts, no disguised links, real mrkdwn."""

from __future__ import annotations

import pytest
from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import BOT_USER, app_mention, slash_command

from bots.adapters.slack.format import escape, link, to_mrkdwn, user_mention
from core.testing import tool_call

ROOT = "1700000100.000100"


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("**bold** and *it* and ~~gone~~", "*bold* and _it_ and ~gone~"),
        ("# Heading\n\nbody", "*Heading*\n\nbody"),
        ("[a link](https://x.example/a?b=1&c=2)", "a link (<https://x.example/a?b=1&amp;c=2>)"),
        ("- a\n- b\n  - c", "• a\n• b\n    ◦ c"),
        ("1. one\n2. two", "1. one\n2. two"),
        ("> quoted\n> more", "> quoted\n> more"),
        ("`a < b`", "`a &lt; b`"),
        ("```py\nx = a < b && c\n```", "```\nx = a &lt; b &amp;&amp; c\n```"),
        ("| a | bb |\n|---|---|\n| 1 | 2 |", "```\na | bb\n--+---\n1 | 2\n```"),
    ],
)
def test_markdown_becomes_mrkdwn(markdown: str, expected: str) -> None:
    """Bold, italics, strikethrough, headings, links, lists, quotes, code and tables convert."""
    assert to_mrkdwn(markdown) == expected


@pytest.mark.parametrize(
    "text",
    ["<!channel> standup", "<!here>", "<!everyone>", "<!subteam^S1|@team>", "<!date^1|x>"],
)
def test_slack_control_sequences_are_escaped(text: str) -> None:
    """Every <!…> sequence from text is shown as characters, never interpreted."""
    out = to_mrkdwn(text)
    assert "<" not in out and "&lt;!" in out


@pytest.mark.parametrize(
    "text", ["@channel", "@Here", "@EVERYONE now", "\uff20channel", "@\u200bchannel"]
)
def test_broadcast_words_are_neutralised(text: str) -> None:
    """@channel/@here/@everyone in any case or width get a word joiner after the @."""
    out = to_mrkdwn(text)
    assert "@\u2060" in out and "\uff20" not in out


def test_disguised_link_shows_its_real_url() -> None:
    """A Slack-style labelled link in text stays text; a Markdown link shows its URL."""
    assert to_mrkdwn("<https://evil.example/login|Q2 report>") == (
        "&lt;https://evil.example/login|Q2 report&gt;"
    )
    assert to_mrkdwn("[Q2 report](https://evil.example/login)") == (
        "Q2 report (<https://evil.example/login>)"
    )
    assert link("https://a.example/x|label") == "<https://a.example/x%7Clabel>"
    assert link("javascript:alert(1)") == "javascript:alert(1)"


def test_user_and_channel_references_stay_mentions() -> None:
    """<@U…> and <#C…|name> are kept as the bot's own markup (labels dropped)."""
    assert to_mrkdwn("ask <@U0ALICE01> in <#C0GEN|general>") == "ask <@U0ALICE01> in <#C0GEN>"
    assert user_mention("W333") == "<@W333>"
    with pytest.raises(ValueError, match="not a Slack user id"):
        user_mention("<!channel>")
    assert escape("a & b") == "a &amp; b"


async def test_slash_command_title_cannot_ping_the_channel(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """/taskboard add "<!channel> standup now" answers without a live <!channel>."""
    bot = await make_bot()
    url = fake_slack.response_url
    # Slack escapes < and > in the command text it sends
    await bot.command(
        slash_command("/taskboard", 'add "&lt;!channel&gt; standup now"', response_url=url)
    )
    await settle()
    await bot.command(
        slash_command(
            "/taskboard", 'add "&lt;https://evil.example/login|Q2 report&gt;"', response_url=url
        )
    )
    await settle()
    await bot.command(slash_command("/taskboard", "list", response_url=url))
    await settle()
    titles = [t["title"] for t in (await bot.state(None))["tasks"]]
    assert titles == ["<!channel> standup now", "<https://evil.example/login|Q2 report>"]
    for text in fake_slack.posted_texts():
        assert "<!" not in text and "<https://evil" not in text
    listing = fake_slack.response_urls[-1]["text"]
    assert "&lt;!channel&gt; standup now" in listing
    assert "&lt;https://evil.example/login|Q2 report&gt;" in listing


async def test_model_output_is_escaped_and_converted(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """Model text with <!channel> <!everyone> and Markdown is posted as safe mrkdwn."""
    bot = await make_bot(["<!channel> <!everyone> **Done**, see [the board](https://b.example)"])
    await bot.event(app_mention(f"<@{BOT_USER}> what is new?"))
    await settle()
    (posted,) = [c.params["text"] for c in fake_slack.named("chat.postMessage")]
    assert posted == (
        "&lt;!channel&gt; &lt;!everyone&gt; *Done*, see the board (<https://b.example>)"
    )
    assert fake_slack.named("chat.postMessage")[0].params["link_names"] in ("false", False, "0")


async def test_tool_reply_is_formatted_too(make_bot: MakeBot, fake_slack: FakeSlackApi) -> None:
    """A reply after a tool call passes through the same formatter."""
    bot = await make_bot([tool_call("add_task", title="@here look"), "Added *@here look*."])
    await bot.event(app_mention(f"<@{BOT_USER}> add it"))
    await settle()
    (posted,) = [c.params["text"] for c in fake_slack.named("chat.postMessage")]
    assert posted == "Added _@\u2060here look_."
