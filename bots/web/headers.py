"""Security headers on every console response.

The confirmation pages are one button away from a change, so no other site may frame
them (clickjacking); scripts and styles come from the console only; session ids in
URLs never leak to other sites through the Referer header.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@web.middleware
async def security_headers(request: web.Request, handler: Any) -> web.StreamResponse:
    """Add :data:`HEADERS` to the response (static files may be cached)."""
    response: web.StreamResponse = await handler(request)
    for name, value in HEADERS.items():
        if name == "Cache-Control" and request.match_info.route.name == "public-static":
            continue
        response.headers.setdefault(name, value)
    return response
