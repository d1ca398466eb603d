"""How a run's images and files are named in its history: by reference, never by bytes.

A run keeps, per image or file it was given, ``{"kind", "name", "type", "size", "id"}``
(``core.media``); later runs and the history read them as one line, made here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["attached_note"]


def attached_note(media: Iterable[Mapping[str, Any]]) -> str:
    """``[attached: a.png (image/png, 12 KB), …]``: an earlier run's media, by reference."""
    shown = []
    for ref in media:
        size = ref.get("size")
        about = str(ref.get("type", "?"))
        if isinstance(size, int):
            about += f", {_size(size)}"
        shown.append(f"{ref.get('name', '?')} ({about})")
    return f"[attached: {', '.join(shown)}]"


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
