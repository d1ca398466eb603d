"""Discord adapter (discord.py): mentions, threads and DMs, one app command per agent.

Modules: ``traits`` (what shared modules know of Discord), ``adapter`` (its registry
entry), ``parse`` (discord.Message -> InboundMessage, pure), ``commands`` (the
app-command tree: defer, run, follow up), ``client`` (the gateway client), ``cli``.
"""

from __future__ import annotations

from bots.adapters.discord.traits import TRAITS

__all__ = ["TRAITS"]
