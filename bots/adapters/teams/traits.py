"""Teams' traits: what shared modules know about it (``bots.platforms``)."""

from __future__ import annotations

import re

from bots.platforms import PlatformTraits, register_traits

__all__ = ["MESSAGE_LIMIT", "TRAITS", "USER_ID"]

#: characters of text one Teams message may hold (its whole payload is ~28 KB)
MESSAGE_LIMIT = 25_000

#: a user as Statebot keys them: the Entra object id (a GUID) Teams sends as
#: ``from.aadObjectId``, else the Bot Framework id ``29:…``
USER_ID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|29:[\w.-]+",
    re.IGNORECASE,
)


def _is_dm_channel(workspace: str, channel: str) -> bool:
    # a personal (1:1) chat's conversation id starts with "a:"; channels and group
    # chats are "19:…@thread…" (bots.adapters.teams.parse)
    return channel.startswith("a:")


TRAITS = PlatformTraits(
    name="teams",
    message_limit=MESSAGE_LIMIT,
    reply_placement="thread",
    is_dm_channel=_is_dm_channel,
    user_id_pattern=USER_ID,
    # turned into a real mention entity when sent (bots.adapters.teams.text)
    mention_markup='<at id="{user}">{user}</at>',
    # how parse.py leaves another user's mention in the text: id and display name
    user_mention=re.compile(r'<at id="(?P<id>[^"<>]+)">(?P<label>[^<>]*)</at>'),
    channel_mention=None,  # parse.py writes channel and team mentions as plain "@name"
)

# known as soon as any module of the platform is imported (its package face imports
# this one), so code driving the adapter without the registry still finds them
register_traits(TRAITS)
