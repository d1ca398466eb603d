"""Files on Slack: a message's ``files`` in (listed, downloaded with the bot token) and
a tool's images and files out (files upload v2, into the reply's thread).

In: a ``file_share`` message lists its files on the event (``files``: ``id``, ``name``,
``mimetype``, ``size``, ``url_private``). :func:`attachments_of` turns them into the
neutral :class:`bots.inbound.Attachment`; :func:`slack_fetch` downloads one from
``url_private`` with ``Authorization: Bearer <bot token>`` (the ``files:read``
scope), refused as soon as it passes the bound. The token is sent only to Slack's
own hosts (``*.slack.com``) and to the configured Web API's host, never elsewhere.
A file still being processed, or one the app may not read, is refused with why.

Out: :func:`upload_media` posts each of a reply's images and files in the thread with
``files_upload_v2`` (``files.getUploadURLExternal``, the upload, then
``files.completeUploadExternal``), retried like every Web API call by the sender;
a failure is a :class:`FilesUndelivered` (a DeliveryError), which the caller reports as
for text, saying that the text was posted and the files were not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import structlog
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.send import TRANSPORT_ERRORS, DeliveryError, SlackSender
from bots.chat.attachments import Fetch, FetchError, read_bounded
from bots.chat.replies import media_bytes
from bots.inbound import Attachment, InboundMessage
from core.media import File, Image

__all__ = [
    "FILES_UNDELIVERED",
    "FilesUndelivered",
    "attachments_of",
    "slack_fetch",
    "upload_media",
    "with_file_info",
]

log = structlog.get_logger(__name__)

#: what the user is told when the text went out but the files did not
FILES_UNDELIVERED = (
    "My answer is above, but I could not attach its files here (`{error}`). Your message "
    "was handled, so please check the result before resending."
)


class FilesUndelivered(DeliveryError):
    """The reply's text was posted; uploading its files failed for good."""


#: seconds one download may take
DOWNLOAD_TIMEOUT = 60.0


def attachments_of(event: Mapping[str, Any]) -> tuple[Attachment, ...]:
    """The files of a message event, as the neutral record (pure: nothing downloaded).

    Files without a ``url_private`` (listed by id only, external files, tombstones of
    deleted ones) have an empty URL: :func:`with_file_info` asks ``files.info`` for
    them, and what stays without one is refused with why.
    """
    found = []
    for item in event.get("files") or ():
        if not isinstance(item, dict) or not item.get("id"):
            continue
        size = item.get("size")
        found.append(
            Attachment(
                name=str(item.get("name") or item.get("title") or item["id"]),
                media_type=str(item.get("mimetype") or ""),
                size=size if isinstance(size, int) else None,
                platform_id=str(item["id"]),
                url=str(item.get("url_private_download") or item.get("url_private") or ""),
            )
        )
    return tuple(found)


async def with_file_info(sender: SlackSender, msg: InboundMessage) -> InboundMessage:
    """``msg`` with each file Slack listed without details (``file_access``:
    ``check_file_info``, as in some shared channels) completed by ``files.info``.

    A file ``files.info`` will not describe keeps its bare listing (and is refused with
    why); a message whose files are complete costs no call.
    """
    if all(a.url for a in msg.attachments):
        return msg
    completed = []
    for attachment in msg.attachments:
        if attachment.url:
            completed.append(attachment)
            continue
        try:
            answer = await sender.call("files_info", file=attachment.platform_id)
        except DeliveryError as exc:
            log.warning("slack_file_info_failed", file_id=attachment.platform_id, error=exc.error)
            completed.append(attachment)
            continue
        found = attachments_of({"files": [answer.get("file") or {}]})
        completed.append(found[0] if found else attachment)
    return replace(msg, attachments=tuple(completed))


def _trusted(url: str, api_base: str) -> bool:
    """True for a URL the bot token may be sent to: Slack's hosts or the Web API's own."""
    host = (urlsplit(url).hostname or "").lower()
    api_host = (urlsplit(api_base).hostname or "").lower()
    return bool(host) and (host == "slack.com" or host.endswith(".slack.com") or host == api_host)


def slack_fetch(client: AsyncWebClient, *, timeout: float = DOWNLOAD_TIMEOUT) -> Fetch:
    """A Fetch downloading ``url_private`` with ``client``'s (the workspace's) bot token."""

    async def fetch(attachment: Attachment, limit: int) -> bytes:
        if not _trusted(attachment.url, client.base_url):
            raise FetchError("its link is not on Slack")
        headers = {"Authorization": f"Bearer {client.token}"}
        try:
            async with (
                aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session,
                session.get(attachment.url, headers=headers) as response,
            ):
                if response.status != 200:
                    raise FetchError(f"Slack answered HTTP {response.status}")
                if response.content_type == "text/html" and not attachment.media_type.startswith(
                    "text/html"
                ):  # Slack's sign-in page: the token may not read files
                    raise FetchError("Slack refused the bot (it needs the files:read scope)")
                return await read_bounded(response, limit)
        except TRANSPORT_ERRORS as exc:
            raise FetchError(type(exc).__name__) from exc

    return fetch


async def upload_media(
    sender: SlackSender,
    channel: str,
    thread: str | None,
    media: Sequence[Image | File],
) -> list[str]:
    """Post a reply's images and files in one upload (files upload v2); their file ids."""
    if not media:
        return []
    uploads = []
    for item in media:
        name, data = media_bytes(item)
        title = (item.alt_text if isinstance(item, Image) else None) or name
        uploads.append({"content": data, "filename": name, "title": title})
    try:  # retried on 429/5xx like any call
        response = await sender.call(
            "files_upload_v2", channel=channel, thread_ts=thread, file_uploads=uploads
        )
    except DeliveryError as exc:  # the text is out already: say only the files failed
        raise FilesUndelivered(exc.method, exc.error, exc.cause) from exc
    return [str(f.get("id", "")) for f in response.get("files") or ()]
