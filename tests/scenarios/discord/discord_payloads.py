"""Discord gateway payloads in the shapes the gateway sends (captured, ids replaced)."""

from __future__ import annotations

import itertools
from typing import Any

from fakes.discord_api import APP_ID, BOT_ID, BOT_USER

GUILD = "1200000000000000001"
CHANNEL = "1200000000000000002"
THREAD = "1200000000000000003"
DM_CHANNEL = "1200000000000000004"
ALICE_ID = "1200000000000000010"
OTHER_BOT_ID = "1200000000000000011"
BOT_ROLE = "1200000000000000020"  # the role Discord creates for the bot when it joins

_ids = itertools.count(1250000000000000001)

ALICE: dict[str, Any] = {
    "id": ALICE_ID,
    "username": "alice",
    "discriminator": "0",
    "global_name": "Alice",
    "avatar": None,
    "public_flags": 0,
}
_MEMBER: dict[str, Any] = {
    "roles": [],
    "joined_at": "2026-01-01T00:00:00.000000+00:00",
    "premium_since": None,
    "deaf": False,
    "mute": False,
    "flags": 0,
    "pending": False,
    "nick": None,
    "avatar": None,
    "communication_disabled_until": None,
}


def guild_create() -> dict[str, Any]:
    """GUILD_CREATE for a guild with one text channel and one public thread in it."""
    return {
        "id": GUILD,
        "name": "Statebot test",
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "owner_id": ALICE_ID,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [
            {
                "id": GUILD,
                "name": "@everyone",
                "color": 0,
                "hoist": False,
                "position": 0,
                "permissions": "1071698660929",
                "managed": False,
                "mentionable": False,
                "flags": 0,
            },
            {
                "id": BOT_ROLE,
                "name": "statebot",
                "color": 0,
                "hoist": False,
                "position": 1,
                "permissions": "2048",
                "managed": True,
                "mentionable": True,
                "flags": 0,
                "tags": {"bot_id": BOT_ID},
            },
        ],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "system_channel_id": CHANNEL,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": None,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "joined_at": "2026-01-01T00:00:00.000000+00:00",
        "large": False,
        "unavailable": False,
        "member_count": 2,
        "voice_states": [],
        "members": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "channels": [
            {
                "id": CHANNEL,
                "type": 0,
                "guild_id": GUILD,
                "name": "general",
                "position": 0,
                "permission_overwrites": [],
                "topic": None,
                "nsfw": False,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "parent_id": None,
                "flags": 0,
            }
        ],
        "threads": [
            {
                "id": THREAD,
                "type": 11,
                "guild_id": GUILD,
                "parent_id": CHANNEL,
                "owner_id": ALICE_ID,
                "name": "planning",
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "message_count": 0,
                "member_count": 1,
                "total_message_sent": 0,
                "flags": 0,
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": "2026-01-01T00:00:00.000000+00:00",
                    "locked": False,
                    "create_timestamp": "2026-01-01T00:00:00.000000+00:00",
                },
            }
        ],
    }


def message_create(
    content: str,
    *,
    channel: str = CHANNEL,
    guild: str | None = GUILD,
    mentions: list[dict[str, Any]] | None = None,
    mention_everyone: bool = False,
    author: dict[str, Any] | None = None,
    mention_roles: list[str] | None = None,
) -> dict[str, Any]:
    """MESSAGE_CREATE; ``guild=None`` is a DM (no guild_id, no member)."""
    data: dict[str, Any] = {
        "type": 0,
        "tts": False,
        "timestamp": "2026-11-22T04:00:00.000000+00:00",
        "pinned": False,
        "nonce": str(next(_ids)),
        "mentions": mentions if mentions is not None else [],
        "mention_roles": mention_roles or [],
        "mention_everyone": mention_everyone,
        "id": str(next(_ids)),
        "flags": 0,
        "embeds": [],
        "edited_timestamp": None,
        "content": content,
        "components": [],
        "channel_id": channel,
        "author": author or ALICE,
        "attachments": [],
    }
    if guild is not None:
        data["guild_id"] = guild
        data["member"] = dict(_MEMBER)
    return data


def bot_mention() -> dict[str, Any]:
    """The bot as it appears in a message's ``mentions`` list."""
    return {**BOT_USER, "member": dict(_MEMBER)}


def other_bot() -> dict[str, Any]:
    """Another bot's user object."""
    return {**ALICE, "id": OTHER_BOT_ID, "username": "otherbot", "bot": True}


def interaction_create(
    command: str, text: str | None, *, user: dict[str, Any] | None = None
) -> dict[str, Any]:
    """INTERACTION_CREATE for a chat-input app command in the guild's text channel."""
    options = [] if text is None else [{"name": "text", "type": 3, "value": text}]
    return {
        "version": 1,
        "type": 2,
        "token": "aW50ZXJhY3Rpb246MTIzOnRva2Vu" + str(next(_ids)),
        "id": str(next(_ids)),
        "application_id": APP_ID,
        "app_permissions": "2248473465835073",
        "attachment_size_limit": 10485760,
        "locale": "en-US",
        "guild_locale": "en-US",
        "guild_id": GUILD,
        "guild": {"id": GUILD, "locale": "en-US", "features": []},
        "channel_id": CHANNEL,
        "channel": {
            "id": CHANNEL,
            "type": 0,
            "guild_id": GUILD,
            "name": "general",
            "position": 0,
            "permissions": "2248473465835073",
            "nsfw": False,
            "parent_id": None,
            "flags": 0,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "topic": None,
        },
        "member": {**_MEMBER, "user": user or ALICE, "permissions": "2248473465835073"},
        "entitlements": [],
        "entitlement_sku_ids": [],
        "authorizing_integration_owners": {"0": GUILD},
        "context": 0,
        "data": {"id": str(next(_ids)), "name": command, "type": 1, "options": options},
    }


__all__ = ["BOT_ID"]
