"""Slack adapter: slack-bolt AsyncApp over HTTP (signing secret) or Socket Mode (app token).

Modules: ``parse`` (payload -> InboundMessage / SlashCommand, pure), ``flags``
(cross-process claims and marks in Redis), ``send`` (threaded, chunked replies),
``listeners`` (the bolt wiring), ``server`` (HTTP and Socket Mode runners), ``cli``.
"""
