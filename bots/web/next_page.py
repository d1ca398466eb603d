"""Where to send the browser after sign-in: a page of this console, never another site.

A browser resolving a ``Location`` drops tabs and newlines, reads ``\\`` as ``/`` and
treats ``//host`` (so also ``/\\host`` and ``/<TAB>/host``) as another site; a page
that later uses the path may decode ``%09`` or ``%5C`` into the same. So a wanted page is
kept only when it is a plain path under the console's base, in every decoded form.
"""

from __future__ import annotations

from urllib.parse import unquote

#: more nested percent-encoding than this is not a page of ours
_MAX_DECODES = 4


def _unsafe_char(text: str) -> bool:
    """Backslash, whitespace or a control character: never part of a console path."""
    return any(c == "\\" or c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in text)


def _plain_path(path: str, base: str) -> bool:
    """True when ``path`` (decoded) is an absolute path under ``base`` with no host."""
    # "//" anywhere: at the start it names a host, and no console page has an empty segment
    if not path.startswith(f"{base}/") or "//" in path:
        return False
    if _unsafe_char(path):
        return False
    # no "." or ".." segments: they could step out of the console's prefix
    return not any(segment in (".", "..") for segment in path.split("/"))


def safe_next(wanted: str | None, base: str) -> str:
    """``wanted`` when it is a page of the console served under ``base``, else its home."""
    home = f"{base}/"
    if not wanted or _unsafe_char(wanted):
        return home
    # the query and fragment cannot name a host; only the path is decoded and checked
    cut = min((i for i in (wanted.find("?"), wanted.find("#")) if i >= 0), default=len(wanted))
    path = wanted[:cut]
    for _ in range(_MAX_DECODES):
        if not _plain_path(path, base):
            return home
        decoded = unquote(path)
        if decoded == path:
            return wanted
        path = decoded
    return home
