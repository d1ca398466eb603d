"""Posting one Reply to Slack: the path every reply takes, answers and scheduled runs alike."""

from __future__ import annotations

from bots.adapters.slack.files import upload_media
from bots.adapters.slack.interactions import post_approval
from bots.adapters.slack.send import SlackSender
from bots.chat.replies import Reply


async def send_reply(
    sender: SlackSender, channel: str, user: str, reply: Reply, thread: str | None
) -> None:
    """Post ``reply`` in ``channel`` (in ``thread`` when given); ephemeral: to ``user`` only.

    A reply waiting for approval carries its buttons; text is formatted, chunked and
    retried on 429 by the sender. The images and files a tool returned follow the text,
    uploaded in the same place (an ephemeral reply's too: Slack has no private files, so
    they go only where the text is public).
    """
    if reply.approval is not None:
        await post_approval(sender, channel, thread, reply)
    elif reply.ephemeral:
        await sender.ephemeral(channel, user, reply.text, thread)
    else:
        await sender.post(channel, reply.text, thread)
        await upload_media(sender, channel, thread, reply.media)
