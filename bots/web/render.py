"""Templates (Jinja2, autoescaped) and the small helpers every page uses."""

from __future__ import annotations

import json
import math
import time
from typing import Any

import jinja2
from aiohttp import web

from bots.web.context import VIEWER, console
from bots.web.cookies import SESSION


def environment() -> jinja2.Environment:
    """The template environment: autoescaping on, undefined names are errors."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bots.web", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["when"] = when
    env.filters["pretty"] = pretty
    env.filters["size"] = size
    return env


def when(timestamp: float | None) -> str:
    """A UTC time for people, or "unknown"."""
    if timestamp is None or not math.isfinite(timestamp) or timestamp <= 0:
        return "unknown"
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))
    except (OverflowError, OSError, ValueError):
        return "unknown"


def pretty(value: Any) -> str:
    """Indented JSON (keys sorted) for display and diffs."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def size(chars: int) -> str:
    """A length in characters, for people."""
    if chars < 1000:
        return str(chars)
    if chars < 1_000_000:
        return f"{chars / 1000:.1f} k"
    return f"{chars / 1_000_000:.1f} M"


def page(request: web.Request, template: str, *, status: int = 200, **context: Any) -> web.Response:
    """``template`` rendered with the console's common context."""
    parts = console(request)
    text = parts.templates.get_template(template).render(
        base=parts.base,
        csrf=request[SESSION]["csrf"],
        viewer=request.get(VIEWER),
        **{"names": {}, **context},
    )
    return web.Response(text=text, status=status, content_type="text/html")


def redirect(location: str) -> web.Response:
    """A 303 See Other (after a POST the browser GETs the new page)."""
    return web.Response(status=303, headers={"Location": location})
