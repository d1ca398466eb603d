"""What a message with one 1 MB image adds to a chat turn, against the same turn in text.

    .venv/bin/python -m bench.file_turns [--turns 30] [--size 1048576]

Both turns go through the chat pipeline (``ChatService.handle_message``) to an agent
whose model is ``OpenAIChat`` talking to the local fake OpenAI server over HTTP, on an
``InMemoryDb``. The image turn's message carries one PNG of ``--size`` bytes (random
pixels, so it does not compress) as a Slack attachment: it is downloaded from a local
HTTP server by the Slack adapter's own fetch (``url_private`` with the bot token,
bounded read), checked, base64-encoded into the request (a data URL) and sent; the
server reads the whole request. The cases take turns. Times in ms: median and p95 over
the turns after warm-up turns; the last rows split the image turn's extra cost into the download
alone and the encoding of the request's content parts alone.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import time
from collections.abc import Awaitable, Callable

import structlog
from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.files import slack_fetch
from bots.app.service import chat_service
from bots.inbound import Attachment, InboundMessage
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.media import Image
from core.models.content import chat_parts
from core.models.openai import OpenAIChat
from core.testing import FakeOpenAIServer
from tests.media_samples import png_bytes

WARMUP = 3
TOKEN = "xoxb-bench"


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def file_server(data: bytes) -> tuple[web.AppRunner, str]:
    """Serve ``data`` at a url_private-like path to the bearer token only; (runner, url)."""

    async def download(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.Response(status=403)
        return web.Response(body=data, content_type="image/png")

    app = web.Application()
    app.router.add_get("/files-pri/T0-F0/photo.png", download)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}/files-pri/T0-F0/photo.png"


async def timed(cases: list[Callable[[], Awaitable[object]]], turns: int) -> list[list[float]]:
    """Each case run WARMUP + ``turns`` times, the cases taking turns (so a drifting load
    weighs on all alike); the measured times in ms, per case."""
    samples: list[list[float]] = [[] for _ in cases]
    for i in range(WARMUP + turns):
        for case, kept in zip(cases, samples, strict=True):
            started = time.perf_counter()
            await case()
            if i >= WARMUP:
                kept.append((time.perf_counter() - started) * 1000)
    return samples


def row(name: str, samples: list[float]) -> str:
    return f"{name:<34}{statistics.median(samples):>10.2f}{percentile(samples, 0.95):>10.2f}"


async def main(turns: int, size: int) -> None:
    side = int((size / 3) ** 0.5)  # RGB pixels of random noise: about ``size`` bytes
    png = png_bytes(side, noisy=True)
    runner, url = await file_server(png)
    client = AsyncWebClient(token=TOKEN, base_url=url.split("/files-pri/")[0] + "/api/")
    fetch = slack_fetch(client)
    with FakeOpenAIServer() as server:
        server.extend(["ok"] * (2 * (WARMUP + turns)))
        model = OpenAIChat(base_url=server.base_url, api_key="bench", max_retries=0)
        agent = Agent(name="helper", model=model, db=InMemoryDb())
        settings = Settings(statebot_default_agent="helper", redis_url=None)
        service = chat_service({"helper": agent}, settings=settings)
        photo = Attachment("photo.png", "image/png", len(png), "F0", url)

        def message(attachments: tuple[Attachment, ...]) -> InboundMessage:
            return InboundMessage(
                platform="slack", workspace="T0", channel="C0", thread="1.0", user="U0",
                text="what is in this picture?", event_id="e", addressed=True,
                attachments=attachments,
            )  # fmt: skip

        async def text_turn() -> None:
            await service.handle_message(message(()), fetch=fetch)

        async def image_turn() -> None:
            reply = await service.handle_message(message((photo,)), fetch=fetch)
            if reply is None or reply.text != "ok":
                raise RuntimeError(f"unexpected reply {reply!r}")

        async def download() -> None:
            await fetch(photo, settings.statebot_max_file_bytes)

        async def encode() -> None:
            chat_parts("what is in this picture?", [Image(content=png, mime_type="image/png")], [])

        plain, with_image, fetched, encoded = await timed(
            [text_turn, image_turn, download, encode], turns
        )
        sent = max(len(str(r)) for r in server.requests)
        await model.aclose()
    await runner.cleanup()
    print(f"image: {len(png):,} bytes PNG; largest request body ~{sent:,} characters")
    print(f"{'turn':<34}{'median ms':>10}{'p95 ms':>10}")
    print(row("text only", plain))
    print(row("text + one image (download+encode)", with_image))
    added = statistics.median(with_image) - statistics.median(plain)
    print(f"{'added by the image (medians)':<34}{added:>10.2f}")
    print(row("  of which: download alone", fetched))
    print(row("  of which: encode parts alone", encoded))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30, help="measured turns per case")
    parser.add_argument("--size", type=int, default=1024 * 1024, help="image size in bytes")
    args = parser.parse_args()
    # the chat pipeline logs each message at info; the measure prints only its table
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    asyncio.run(main(args.turns, args.size))
