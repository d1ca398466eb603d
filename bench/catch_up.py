"""Added latency of thread catch-up: a first mention in a long thread vs a plain text turn.

    .venv/bin/python -m bench.catch_up [--messages 200] [--runs 40] [--quick]

Both kinds of turn go through ``ChatService.handle_message`` (routing, names, the turn
pipeline, the run on a SqliteDb file) and each starts a NEW thread-scoped session, since
catch-up only reads a thread whose session is new:

- *plain*: a mention that starts its thread (nothing earlier to read);
- *catch-up*: a mention in a thread of ``--messages`` earlier messages by 10 people,
  read with the real ``slack_sdk`` client from the fake Slack Web API on loopback
  (``conversations.replies``, 200 per page), names from ``users.info`` (cached after
  the first turn, as in a running bot), rendered and bounded (``STATEBOT_CATCH_UP=50``,
  ``STATEBOT_CATCH_UP_CHARS=8000`` by default, so the model reads the latest 50).

The model is ``ScriptedModel`` (answers at once), so the numbers are what the bot adds;
a real model also reads the extra characters (printed), which costs its own prefill time.
The two kinds alternate, so load on the machine hits both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bots.adapters.slack.catch_up import SlackThread
from bots.adapters.slack.names import SlackNames
from bots.adapters.slack.send import web_client
from bots.app.service import chat_service
from bots.chat.service import ChatService
from bots.inbound import InboundMessage
from bots.ops.logging import configure_logging
from bots.settings import Settings
from core.db.sqlite import SqliteDb
from core.models.base import Message
from core.testing import ScriptedModel
from tests.scenarios.fakes.slack_api import FakeSlackApi
from tools.catalog import COMMAND_ALIASES, create_agents

TEAM, CHANNEL = "T0TEAM001", "C0GENERAL"
PEOPLE = [f"U0PERSON{n:02d}" for n in range(10)]


def _answer(messages: list[Message], _tools: object) -> str:
    return "ok"


def _mention(n: int, thread: str | None) -> InboundMessage:
    ts = f"1800000{n:03d}.000900"
    return InboundMessage(
        "slack",
        TEAM,
        CHANNEL,
        thread or ts,
        PEOPLE[0],
        "what is going on?",
        f"Ev{n}",
        bot_mentioned=True,
        addressed=True,
        reply_thread=thread or ts,
    )


def _thread(fake: FakeSlackApi, n: int, size: int) -> str:
    base = 1700000000 + n * 10_000
    said = [
        {
            "user": PEOPLE[i % len(PEOPLE)],
            "text": f"<@{PEOPLE[(i + 1) % 10]}> note {i}: " + "x" * 60,
            "ts": f"{base + i}.000100",
        }
        for i in range(size)
    ]
    return fake.threads.add(CHANNEL, said)


async def measure(messages: int, runs: int, count: int, chars: int) -> None:
    fake = FakeSlackApi()
    await fake.start()
    client = web_client("xoxb-bench", fake.base_url)
    with tempfile.TemporaryDirectory() as tmp:
        db = SqliteDb(db_file=str(Path(tmp) / "bench.db"))
        settings = Settings(
            statebot_agent_scopes={"taskboard": "thread"},
            statebot_catch_up=count,
            statebot_catch_up_chars=chars,
            redis_url=None,
            openai_api_key=None,
            openai_base_url=None,
        )
        model = ScriptedModel([_answer] * (2 * runs + 4))
        service: ChatService = chat_service(
            create_agents(model, db), settings=settings, aliases=COMMAND_ALIASES
        )
        service.use_names("slack", SlackNames(client))
        plain: list[float] = []
        caught: list[float] = []
        extra = 0
        for n in range(runs + 2):  # the first two warm up (connections, name cache)
            start = time.perf_counter()
            await service.handle_message(_mention(2 * n, None))
            took_plain = time.perf_counter() - start
            parent = _thread(fake, n, messages)
            source = SlackThread(
                client,
                channel=CHANNEL,
                thread_ts=parent,
                latest=f"{1800000000 + n}.0",
                bot_ids=frozenset({"U0BOT0001"}),
            )
            start = time.perf_counter()
            await service.handle_message(_mention(2 * n + 1, parent), earlier=source)
            took_caught = time.perf_counter() - start
            if n >= 2:
                plain.append(took_plain * 1000)
                caught.append(took_caught * 1000)
                first = model.requests[-1].messages
                extra = len(str(next(m.content for m in first if m.role == "user")))
        await db.aclose()
    await fake.stop()
    pages = len(fake.named("conversations.replies")) / (runs + 2)
    print(f"thread of {messages} messages, catch_up={count}, chars={chars}, {runs} runs each")
    print("| turn | median ms | p95 ms |")
    print("|---|---:|---:|")
    for name, times in (
        ("plain text turn (new thread)", plain),
        ("first mention + catch-up", caught),
    ):
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) >= 2 else times[0]
        print(f"| {name} | {statistics.median(times):.2f} | {p95:.2f} |")
    added = statistics.median(caught) - statistics.median(plain)
    print(
        f"added (median): {added:.2f} ms; conversations.replies pages per catch-up: {pages:.1f}; "
        f"characters the model reads in addition: {extra:,}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--count", type=int, default=50, help="STATEBOT_CATCH_UP")
    parser.add_argument("--chars", type=int, default=8000, help="STATEBOT_CATCH_UP_CHARS")
    parser.add_argument("--quick", action="store_true", help="5 runs")
    args = parser.parse_args()
    configure_logging(level="WARNING")  # the table only, not a log line per turn
    asyncio.run(measure(args.messages, 5 if args.quick else args.runs, args.count, args.chars))


if __name__ == "__main__":
    main()
