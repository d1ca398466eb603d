"""The code exchange of an install (``oauth.v2.access``, then ``auth.test``): failures
named, never read as "code expired".

bolt reads every failed exchange as ``invalid_code`` (an expired or reused code), a 500
from Slack's server included, and leaves a slow one to the client's 30 s timeout, after
which aiohttp answers the installer's browser an empty 504. The flow's client here
raises :class:`ExchangeFailed` instead, saying what happened: Slack's error code when
it answered ``ok: false``, its HTTP status when its server failed, or that it could not
be reached. The deadline of the whole exchange is the flow's
(``STATEBOT_SLACK_INSTALL_SECONDS``, :func:`timed_out`).
"""

from __future__ import annotations

from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

__all__ = ["ExchangeClient", "ExchangeFailed", "refused", "timed_out", "unreachable"]

#: what Slack's error codes of ``oauth.v2.access`` mean for the installer
SLACK_ERRORS = {
    "invalid_code": "the authorization code expired or was already used",
    "code_already_used": "the authorization code was already used",
    "invalid_client_id": "this server's SLACK_CLIENT_ID is not the app's; tell its operator",
    "bad_client_secret": "this server's SLACK_CLIENT_SECRET is not the app's; tell its operator",
    "bad_redirect_uri": (
        "the redirect URL does not match the app's settings (SLACK_REDIRECT_URI); tell its operator"
    ),
}
NOTHING_SAVED = "Nothing was installed; start the install again."


class ExchangeFailed(Exception):
    """The exchange gave no installation: the page's status, a short reason, the text."""

    def __init__(self, status: int, reason: str, text: str) -> None:
        super().__init__(text)
        self.status = status
        self.reason = reason
        self.text = text


def refused(method: str, exc: SlackApiError) -> ExchangeFailed:
    """What Slack's answer to ``method`` says: its error code, or its server's failure."""
    response: Any = exc.response
    # an AsyncSlackResponse, or aiohttp's response when the body was not JSON
    status = int(getattr(response, "status_code", None) or getattr(response, "status", 0) or 0)
    data = getattr(response, "data", None)
    error = data.get("error") if isinstance(data, dict) and status == 200 else None
    if error:
        meaning = SLACK_ERRORS.get(str(error))
        why = f" ({meaning})" if meaning else ""
        text = f"Slack refused the install: {method} answered `{error}`{why}. {NOTHING_SAVED}"
        return ExchangeFailed(401, f"slack_error:{error}", text)
    if status >= 500:
        text = f"Slack's server failed (HTTP {status}) on {method}. {NOTHING_SAVED} Try again."
        return ExchangeFailed(502, f"slack_http_{status}", text)
    text = f"Slack answered {method} with HTTP {status} and no result. {NOTHING_SAVED}"
    return ExchangeFailed(502, f"slack_http_{status}", text)


def timed_out(seconds: float) -> ExchangeFailed:
    """Slack did not complete the exchange within the flow's deadline."""
    text = (
        f"Slack did not answer within {seconds:g} s while the install was being completed. "
        f"Nothing was saved on this server; start the install again."
    )
    return ExchangeFailed(504, "slack_timeout", text)


def unreachable(method: str, exc: aiohttp.ClientError) -> ExchangeFailed:
    """No answer at all: the connection to Slack failed."""
    cause = " ".join(str(exc).split()) or type(exc).__name__
    text = f"This server could not reach Slack for {method} ({cause}). {NOTHING_SAVED} Try again."
    return ExchangeFailed(502, "slack_unreachable", text)


class ExchangeClient(AsyncWebClient):
    """The install flow's Web API client: a failed call is an :class:`ExchangeFailed`,
    which bolt does not catch (it would read a SlackApiError as an invalid code)."""

    async def api_call(
        self,
        api_method: str,
        *,
        http_verb: str = "POST",
        files: dict[str, Any] | None = None,
        data: dict[str, Any] | aiohttp.FormData | None = None,
        params: dict[str, Any] | None = None,
        json: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None,
        auth: dict[str, Any] | None = None,
    ) -> AsyncSlackResponse:
        """``AsyncWebClient.api_call``, its failures named (a timeout left to the flow)."""
        try:
            return await super().api_call(
                api_method,
                http_verb=http_verb,
                files=files,
                data=data,
                params=params,
                json=json,
                headers=headers,
                auth=auth,
            )
        except SlackApiError as exc:
            raise refused(api_method, exc) from exc
        except TimeoutError:
            raise  # the flow's deadline says how long it waited
        except aiohttp.ClientError as exc:
            raise unreachable(api_method, exc) from exc
