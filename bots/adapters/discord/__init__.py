"""Discord adapter (discord.py): mentions, threads and DMs, one app command per agent.

Modules: ``parse`` (discord.Message -> InboundMessage, pure), ``commands`` (the
app-command tree: defer, run, follow up), ``client`` (the gateway client), ``cli``.
"""
