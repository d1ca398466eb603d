"""Streamed replies on Slack: one message posted, then edited (``chat.update``) as it grows.

Why ``chat.update`` and not ``chat.startStream``/``appendStream``/``stopStream``
(present in the pinned slack_sdk): the stream methods take Markdown that Slack renders
itself and only ever append, so the text could not go through the safe-mrkdwn
renderer (``bots.adapters.slack.format``: escaped ``<``/``>``, neutralised broadcasts, real
link targets) and a continuation could not be re-cut at a better boundary. Each
edit renders the whole text so far through ``to_mrkdwn``, like a final post.

While tools run, an assistant thread (a DM thread) shows Slack's status line
"is thinking…" (``assistant.threads.setStatus``); elsewhere the hourglass reaction
the listener already shows says the same. The status is decoration: a refusal is
logged and the answer goes on.
"""

from __future__ import annotations

from typing import Any

import structlog

from bots.adapters.slack.format import to_mrkdwn
from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.send import DeliveryError, SlackSender
from bots.adapters.slack.traits import MESSAGE_LIMIT
from bots.chat.replies import Reply
from bots.chat.streaming import PagedStream, StreamOptions
from bots.inbound import InboundMessage

log = structlog.get_logger(__name__)

THINKING = "is thinking…"


class SlackEditor:
    """The :class:`bots.chat.streaming.MessageEditor` for one Slack conversation place."""

    __slots__ = ("_assistant", "_channel", "_sender", "_thread", "limit")

    def __init__(
        self, sender: SlackSender, channel: str, thread_ts: str | None, *, assistant: bool
    ) -> None:
        self._sender = sender
        self._channel = channel
        self._thread = thread_ts
        self._assistant = assistant
        self.limit = MESSAGE_LIMIT

    async def post(self, text: str) -> str:
        """Post one part (in the thread when there is one); return its ts."""
        resp = await self._sender.call(
            "chat_postMessage",
            channel=self._channel,
            thread_ts=self._thread,
            text=to_mrkdwn(text),
            unfurl_links=False,
            link_names=False,
        )
        return str(resp.get("ts", ""))

    async def edit(self, handle: Any, text: str) -> None:
        """Replace a posted part's text."""
        await self._sender.call(
            "chat_update", channel=self._channel, ts=handle, text=to_mrkdwn(text)
        )

    async def delete(self, handle: Any) -> None:
        """Remove a part the final text no longer needs."""
        await self._sender.call("chat_delete", channel=self._channel, ts=handle)

    async def status(self, running: bool) -> None:
        """The assistant thread's status line while a tool runs (cleared after)."""
        if not self._assistant or self._thread is None:
            return
        try:
            await self._sender.call(
                "assistant_threads_setStatus",
                channel_id=self._channel,
                thread_ts=self._thread,
                status=THINKING if running else "",
            )
        except DeliveryError as exc:
            log.warning("slack_status_failed", error=exc.error)


def slack_stream(
    sender: SlackSender, msg: InboundMessage, thread_ts: str | None, options: SlackOptions
) -> PagedStream | None:
    """The stream a reply to ``msg`` is shown through; None when streaming is off."""
    stream = StreamOptions(options.stream_replies, options.stream_seconds, options.clock)
    return stream.sink(SlackEditor(sender, msg.channel, thread_ts, assistant=msg.is_dm))


async def finish_stream(sink: PagedStream | None, reply: Reply) -> bool:
    """End a streamed reply with the final text; False when the caller must post it.

    Buttons and ephemeral replies are never streamed: they go the ordinary way, after
    whatever text was already shown. A DeliveryError reaches the caller, which tells
    the user, as for any reply.
    """
    if sink is None or reply.approval is not None or reply.ephemeral:
        return False
    return await sink.finish(reply.text)
