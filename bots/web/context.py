"""What every handler reads from the application: typed keys, and the request's viewer."""

from __future__ import annotations

from dataclasses import dataclass, field

import jinja2
from aiohttp import web

from bots.web.access import Viewer
from bots.web.config import WebConfig
from bots.web.names import ConsoleNames
from bots.web.revocation import Revocations
from bots.web.tokens import AdminTokens
from core.db.base import BaseDb


@dataclass(frozen=True, slots=True)
class Console:
    """The console's parts, built once per application."""

    db: BaseDb
    config: WebConfig
    tokens: AdminTokens
    templates: jinja2.Environment
    #: each admin's sign-in generation, in the deployment's store (sign-out raises it)
    generations: Revocations
    #: the path the console is mounted under ("" when it is the whole server)
    base: str = ""
    #: user and channel names for the pages (ids when the platform gives none)
    names: ConsoleNames = field(default_factory=ConsoleNames)


CONSOLE = web.AppKey("web_console", Console)
#: the signed-in admin of a request (set by the sign-in middleware)
VIEWER = web.RequestKey("statebot_console_viewer", Viewer)


def console(request: web.Request) -> Console:
    """The console serving ``request``."""
    return request.config_dict[CONSOLE]


def viewer(request: web.Request) -> Viewer:
    """The signed-in admin (every non-public route has one)."""
    return request[VIEWER]
