"""Slack adapter: slack-bolt AsyncApp over HTTP (signing secret) or Socket Mode (app token).

Modules: ``traits`` (what shared modules know of Slack), ``adapter`` (its registry
entry), ``parse`` (payload -> InboundMessage / SlashCommand, pure), ``flags``
(cross-process claims and marks in Redis), ``send`` (threaded, chunked replies),
``listeners`` (the bolt wiring), ``server`` (HTTP and Socket Mode runners), ``cli``.
"""

from __future__ import annotations

from bots.adapters.slack.traits import TRAITS

__all__ = ["TRAITS"]
