"""Microsoft Teams adapter (Microsoft 365 Agents SDK): channel reply chains, chats, DMs.

Modules: ``traits`` (what shared modules know of Teams), ``settings``, ``adapter`` (its
registry entry), ``parse`` (activity JSON -> inbound records, pure), ``text`` (safe
outgoing text and mention entities), ``cards`` (Adaptive Cards for boards and
approvals), ``send`` (posting with 429/5xx retries), ``bot`` (the SDK agent: messages
acknowledged at once and answered in the background, card actions answered in the
invoke), ``server`` (the aiohttp endpoint with the SDK's JWT validation), ``stream``
(streamed answers in personal chats), ``scheduled`` (reminders), ``manifest`` (the
Teams app package's manifest.json), ``cli``.
"""

from __future__ import annotations

from bots.adapters.teams.traits import TRAITS

__all__ = ["TRAITS"]
