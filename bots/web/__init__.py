"""The web admin console: sessions, versions, actions and operations in a browser.

``statebot web`` serves it; ``mount(app, db, config)`` adds it to another aiohttp
application. See docs/web-admin.md.
"""

from __future__ import annotations

from bots.web.app import console_mounts, create_app, mount
from bots.web.config import WebConfig, WebConfigError

__all__ = ["WebConfig", "WebConfigError", "console_mounts", "create_app", "mount"]
