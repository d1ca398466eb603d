"""Telegram's traits: what shared modules know about it (``bots.platforms``)."""

from __future__ import annotations

from bots.platforms import PlatformTraits, register_traits

__all__ = ["MESSAGE_LIMIT", "TRAITS"]

#: characters one Telegram message may hold (after MarkdownV2 entities are parsed)
MESSAGE_LIMIT = 4096


def _is_dm_channel(workspace: str, channel: str) -> bool:
    # a private chat's id is the user's id (positive); groups and channels are negative
    return not channel.startswith("-")


TRAITS = PlatformTraits(
    name="telegram",
    message_limit=MESSAGE_LIMIT,
    # a group's conversation is flat, a forum topic is its own; replies go where the
    # message was posted (the topic, via message_thread_id)
    reply_placement="channel",
    is_dm_channel=_is_dm_channel,
    # no user_id_pattern: a mention by id is a tg://user link, which would ping; replies
    # name users by their key in a code span instead. Incoming mentions are @usernames,
    # readable as they are, so no mention pattern either.
    user_id_pattern=None,
)

# known as soon as any module of the platform is imported
register_traits(TRAITS)
