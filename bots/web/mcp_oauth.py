"""Where an MCP server's authorization sends a person back: ``/mcp/oauth/callback``.

Public (the person is signed in to the authorization server, not to this console):
the redirect's ``state`` names a flow this process began from chat (``/connect
<server>``, ``core.tools.mcp.oauth``), and only that flow takes its ``code``; an unknown
or expired ``state`` changes nothing. The page says what happened, in one line, and
never shows the code.
"""

from __future__ import annotations

import structlog
from aiohttp import web

from bots.web.render import page
from bots.web.signin import PUBLIC
from core.tools.mcp.oauth import abandon, complete

log = structlog.get_logger("bots.web")

EXPIRED = (
    "This link is unknown or has expired, so nothing was connected. Send /connect and "
    "the server's name to the bot again for a new link."
)


async def oauth_callback(request: web.Request) -> web.Response:
    """Hand the authorization's answer to the flow waiting for it."""
    state = request.query.get("state", "")
    code = request.query.get("code", "")
    refused = request.query.get("error")
    if refused:
        known = abandon(state, f"the authorization was refused ({refused})")
        log.info("mcp_oauth_callback", outcome="refused", known=known)
        message = f"The authorization was refused ({refused}); nothing was connected."
        return page(request, "message.html", status=400, title="Not connected", message=message)
    if not state or not code or not complete(state, code, request.query.get("iss")):
        log.info("mcp_oauth_callback", outcome="unknown_state")
        return page(request, "message.html", status=400, title="Not connected", message=EXPIRED)
    log.info("mcp_oauth_callback", outcome="completed")
    return page(
        request,
        "message.html",
        title="Connected",
        message="Done: the bot can now act as you there. You can close this tab and go "
        "back to the chat.",
    )


def add_routes(app: web.Application) -> None:
    """The public OAuth callback."""
    app.router.add_get("/mcp/oauth/callback", oauth_callback, name=f"{PUBLIC}mcp-oauth-callback")
