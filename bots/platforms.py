"""What shared modules know about a chat platform: its :class:`PlatformTraits`.

Shared modules never branch on a platform's name. They look its traits up by the
``platform`` of the inbound record, the session key or the schedule target
(``traits_for(msg.platform)``) and act on what the traits say: how long one message
may be, which channels are direct messages, how a reply mentions a user and how
incoming text mentions users and channels, where a reply goes. Each adapter declares
its own traits beside its code (``bots/adapters/<name>/``); the adapters' registry
enters them here when it loads, so every process that serves, snapshots or maintains
sessions knows every registered platform.

A platform with no traits entry (a record made by hand, a session key of a platform
this process never loaded) gets the neutral answers: no limit, no direct-message
channels, users named by their key in a code span, no mentions recognised in its
text, replies in the message's thread.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "PlatformTraits",
    "ReplyPlacement",
    "known_platforms",
    "register_traits",
    "traits_for",
    "unregister_traits",
]

#: where a reply to a message goes: in the message's thread (a top-level message starts
#: one; direct messages are answered at the top level), in the channel or thread the
#: message was posted in, or printed in place (a terminal)
ReplyPlacement = Literal["thread", "channel", "inline"]


def _no_dm_channels(workspace: str, channel: str) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class PlatformTraits:
    """One platform's answers to the questions shared modules ask."""

    #: the platform's name as it stands in inbound records and keys (``slack``)
    name: str
    #: characters one message may hold; longer replies are chunked (None: unbounded)
    message_limit: int | None
    #: where a reply goes (see :data:`ReplyPlacement`)
    reply_placement: ReplyPlacement
    #: the DM rule: is this (workspace, channel) of a session key a direct message?
    is_dm_channel: Callable[[str, str], bool] = _no_dm_channels
    #: a user id a reply may mention with :attr:`mention_markup` (None: never mention)
    user_id_pattern: re.Pattern[str] | None = None
    #: how a mention of a user looks in text, ``{user}`` being their id (``<@{user}>``)
    mention_markup: str = "<@{user}>"
    #: a user mention in incoming text: the user's id in group ``id``, the label the
    #: platform may add in group ``label`` (None: its text carries no user mentions)
    user_mention: re.Pattern[str] | None = None
    #: a channel mention in incoming text, with the same groups (None: none)
    channel_mention: re.Pattern[str] | None = None

    def mention(self, user: str) -> str | None:
        """The markup naming ``user`` of the reader's own workspace, or None when the id
        does not look like one this platform renders as a mention (and nothing else)."""
        if self.user_id_pattern is None or not self.user_id_pattern.fullmatch(user):
            return None
        return self.mention_markup.format(user=user.replace("`", "'"))


_TRAITS: dict[str, PlatformTraits] = {}


def register_traits(traits: PlatformTraits) -> None:
    """Enter ``traits`` under its name (again: the newer entry replaces the older)."""
    _TRAITS[traits.name] = traits


def unregister_traits(name: str) -> None:
    """Forget the traits of ``name`` (its adapter left the registry)."""
    _TRAITS.pop(name, None)


def traits_for(platform: str) -> PlatformTraits | None:
    """The traits registered for ``platform``, or None (then shared modules act neutrally)."""
    return _TRAITS.get(platform)


def known_platforms() -> tuple[str, ...]:
    """The names with traits, in the order they were registered."""
    return tuple(_TRAITS)
