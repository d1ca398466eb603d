"""Split a long reply into messages a platform accepts.

Cuts fall on the last paragraph break, else line break, else space before the
limit; only a single word longer than the limit is cut mid-word. A code fence open
at a cut is closed at the end of the chunk and reopened (same info string) at the
start of the next, so every chunk renders on its own.
"""

from __future__ import annotations

DISCORD_LIMIT = 2000
SLACK_LIMIT = 3000

_FENCE = "```"
# room kept for a closing fence ("\n```") and a reopening one ("```lang\n")
_FENCE_RESERVE = 4


def _open_fence(text: str) -> str | None:
    """The opening fence line left open at the end of ``text``, or None."""
    opening: str | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            opening = None if opening is not None else stripped
    return opening


def _cut(text: str, limit: int) -> int:
    """Where to cut ``text`` so the head is at most ``limit`` characters."""
    window = text[: limit + 1]
    for separator in ("\n\n", "\n", " "):
        at = window.rfind(separator, 0, limit + 1)
        if at > 0:
            return at
    return limit


def chunk_text(text: str, limit: int) -> list[str]:
    """Chunks of at most ``limit`` characters, in order; [] for blank text."""
    if limit < 20:
        raise ValueError("limit must leave room for code fences (at least 20)")
    chunks: list[str] = []
    rest = text.strip("\n")
    reopen = ""
    while rest.strip():
        rest = reopen + rest
        if len(rest) <= limit:
            chunks.append(rest)
            break
        at = _cut(rest, limit - _FENCE_RESERVE)
        head = rest[:at].rstrip()
        fence = _open_fence(head)
        if at <= len(reopen) or not head.strip():
            # no progress past a reopened fence line (absurdly long): cut hard, plain
            head, at, fence = rest[:limit], limit, None
        elif fence is not None:
            head += "\n" + _FENCE
        chunks.append(head)
        reopen = fence + "\n" if fence is not None else ""
        rest = rest[at:].lstrip("\n") if fence is not None else rest[at:].lstrip(" \n")
    return chunks
