"""What the installer's browser sees when an install does not complete.

One page per reason bolt reports (expired or reused state, another browser, a
cancelled consent, a database outage; a failed code exchange names its own cause,
``bots.adapters.slack.exchange``), each saying whether anything was installed and
linking back to the install page; the state cookie is deleted with it. Success keeps
bolt's page (it opens the app in Slack).
"""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence

import structlog
from slack_bolt.oauth.async_callback_options import (
    AsyncCallbackOptions,
    AsyncFailureArgs,
    DefaultAsyncCallbackOptions,
)
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_bolt.response import BoltResponse

log = structlog.get_logger(__name__)
_bolt_log = logging.getLogger(__name__)  # bolt's parts take a stdlib logger

#: what the installer's browser shows when the redirect cannot complete, by bolt's reason
FAILURE_PAGES = {
    "invalid_browser": (
        "This install did not start in this browser (its install cookie is missing or "
        "different; the install page must be opened over https://). Nothing was installed."
    ),
    "invalid_state": "This install link has expired or was already used. Nothing was installed.",
    "missing_code": "Slack sent no authorization code. Nothing was installed.",
    "storage_error": (
        "Slack approved the install, but this server could not save it (its database is "
        "unavailable), so the bot will not answer in that workspace yet."
    ),
    "access_denied": "The install was cancelled on Slack's page. Nothing was installed.",
}


STATE_UNAVAILABLE = (
    "This server's database is unavailable, so the install link could not be issued or "
    "checked. Nothing was installed; try again in a minute."
)


def callback_options(settings: AsyncOAuthSettings) -> AsyncCallbackOptions:
    """bolt's success page, and failure pages that say what happened and what to do."""
    default = DefaultAsyncCallbackOptions(
        logger=_bolt_log,
        state_utils=settings.state_utils,
        redirect_uri_page_renderer=settings.redirect_uri_page_renderer,
    )

    async def failure(args: AsyncFailureArgs) -> BoltResponse:
        log.warning("slack_install_failed", reason=args.reason)
        text = FAILURE_PAGES.get(args.reason, f"Slack reported `{args.reason}`.")
        return failure_page(settings, args.suggested_status_code, args.reason, text)

    return AsyncCallbackOptions(success=default.success, failure=failure)


def failure_page(settings: AsyncOAuthSettings, status: int, reason: str, text: str) -> BoltResponse:
    """An HTML page saying why the install did not complete, linking to a new start."""
    install = html.escape(settings.install_path, quote=True)
    body = (
        '<!doctype html><html><head><meta charset="utf-8"><title>Install failed</title>'
        "</head><body><h1>The install did not complete</h1>"
        f"<p>{html.escape(text)}</p>"
        f'<p><a href="{install}">Start the install again</a>.</p>'
        f"<p><small>reason: {html.escape(reason)}</small></p></body></html>"
    )
    headers: dict[str, str | Sequence[str]] = {
        "Content-Type": "text/html; charset=utf-8",
        "Set-Cookie": settings.state_utils.build_set_cookie_for_deletion(),
    }
    return BoltResponse(status=status, body=body, headers=headers)
