"""Telegram adapter (python-telegram-bot): groups, forum topics, DMs, commands, keyboards.

Modules: ``traits`` (what shared modules know of Telegram), ``settings``, ``adapter``
(its registry entry) and ``command`` (``statebot telegram``), both light; ``parse``
(Update -> InboundMessage / SlashCommand / Press, pure), ``render`` (the one MarkdownV2
renderer), ``bot`` (the client, flood control, the command menu), ``keyboards``
(inline keyboards and the store behind their callback data), ``send`` (chunked
delivery), ``stream`` (answers shown while written), ``updates`` (one update handled:
claim, run, reply), ``presses`` (keyboard clicks: board buttons, approvals),
``scheduled`` (reminders), ``names`` (names for the model), ``intake`` (long polling
or the webhook), ``cli`` (serving, graceful stop).
"""

from __future__ import annotations

from bots.adapters.telegram.traits import TRAITS

__all__ = ["TRAITS"]
