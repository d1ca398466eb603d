"""The Slack HTTP server can serve another aiohttp app under a prefix (e.g. a web console)."""

from __future__ import annotations

import aiohttp
from aiohttp import web

from bots.adapters.slack.send import web_client
from bots.adapters.slack.server import SlackHttpServer, build_slack_app
from bots.app.service import chat_service
from bots.ops.flags import MemoryFlags
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from tools.catalog import create_agents


async def test_mounted_app_is_served_beside_the_events_endpoint() -> None:
    """A sub-app mounted at /admin answers there; /healthz and the events path still work."""
    console = web.Application()

    async def page(_request: web.Request) -> web.Response:
        return web.Response(text="console")

    console.router.add_get("/", page)
    settings = Settings(openai_api_key=None, openai_base_url=None)
    bolt = build_slack_app(
        service=chat_service(create_agents(None, InMemoryDb()), settings=settings),
        client=web_client("xoxb-1", "http://127.0.0.1:9/api/"),
        flags=MemoryFlags(),
        signing_secret="secret",
    )
    server = SlackHttpServer(bolt, host="127.0.0.1", port=0, mounts={"/admin": console})
    await server.start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{base}/admin/") as resp:
                assert (resp.status, await resp.text()) == (200, "console")
            async with http.get(f"{base}/healthz") as resp:
                assert resp.status == 200
            async with http.post(f"{base}/slack/events", data=b"{}") as resp:
                assert resp.status == 401  # unsigned: refused by the signature check
    finally:
        await server.stop()
