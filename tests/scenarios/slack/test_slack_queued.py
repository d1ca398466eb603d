"""Busy Slack threads: a message that waits its turn shows it, then gets its answer."""

from __future__ import annotations

from fakes.slack_api import FakeSlackApi
from slack_harness import MakeBot, settle
from slack_payloads import ALICE, BOB, BOT_USER, CHANNEL, TEAM, app_mention

from bots.adapters.slack.queued import QUEUED_REACTION
from bots.chat.errors import QUEUE_TIMEOUT
from bots.keys import session_key

PARENT = "1700000400.000100"
SESSION = session_key("slack", TEAM, CHANNEL, PARENT, ALICE, "thread")


def _reacted(fake: FakeSlackApi, method: str) -> list[str]:
    return [
        c.params["timestamp"] for c in fake.named(method) if c.params["name"] == QUEUED_REACTION
    ]


async def test_two_people_at_once_both_answered_in_order(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """While a run holds the thread, Ana then Bo write: each sees ⏸, then both answers, in order."""
    bot = await make_bot(["For Ana.", "For Bo."], scopes={"taskboard": "thread"})
    db = bot.taskboard.db
    assert db is not None
    async with db.session_lock(SESSION):  # a run of this thread is under way
        await bot.event(
            app_mention(
                f"<@{BOT_USER}> first",
                ts="1700000401.000100",
                thread_ts=PARENT,
                user=ALICE,
                event_id="Ev0BUSY01",
            )
        )
        await fake_slack.wait_for(lambda f: _reacted(f, "reactions.add") == ["1700000401.000100"])
        await bot.event(
            app_mention(
                f"<@{BOT_USER}> second",
                ts="1700000402.000100",
                thread_ts=PARENT,
                user=BOB,
                event_id="Ev0BUSY02",
            )
        )
        await fake_slack.wait_for(lambda f: len(_reacted(f, "reactions.add")) == 2)
        assert bot.model.requests == []  # nothing ran while the thread was busy
    await settle()
    answers = [t for t in fake_slack.posted_texts() if t.startswith("For ")]
    assert [a.split("\n")[0] for a in answers] == ["For Ana.", "For Bo."]
    questions = [
        [str(m.content) for m in r.messages if m.role == "user"][-1] for r in bot.model.requests
    ]
    assert questions == ["Ana: first", "Bo: second"]
    assert sorted(_reacted(fake_slack, "reactions.remove")) == [
        "1700000401.000100",
        "1700000402.000100",
    ]


async def test_a_wait_past_its_bound_runs_nothing_and_says_so(
    make_bot: MakeBot, fake_slack: FakeSlackApi
) -> None:
    """The thread stays busy past lock_timeout: the reply says nothing was run, and nothing was."""
    bot = await make_bot(["never sent"], scopes={"taskboard": "thread"})
    db = bot.taskboard.db
    assert db is not None
    db.lock_timeout = 0.3
    async with db.session_lock(SESSION, timeout=5):
        await bot.event(
            app_mention(
                f"<@{BOT_USER}> add milk",
                ts="1700000403.000100",
                thread_ts=PARENT,
                event_id="Ev0BUSY03",
            )
        )
        await fake_slack.wait_for(
            lambda f: any(t.startswith(QUEUE_TIMEOUT) for t in f.posted_texts())
        )
    await settle()
    assert _reacted(fake_slack, "reactions.add") == ["1700000403.000100"]
    assert bot.model.requests == [] and bot.model.remaining == 1
    assert await db.aload(SESSION) is None  # no session, no run, no state
