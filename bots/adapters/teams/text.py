"""Safe outgoing text: what user and model text may and may not become on Teams.

Replies are sent as Markdown. Before that, every ``<`` and ``>`` is escaped, so no
``<at>`` tag (a channel's or team's mention, or anyone's), HTML or link markup from
user or model text reaches Teams live; a Markdown link ``[label](url)`` is written
``label (url)`` so a link always shows where it goes. The one exception is the
traits' user mention ``<at id="…">…</at>`` naming a user id (a GUID or ``29:…``),
which becomes a real mention entity (``Approved by @Ana``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bots.adapters.teams.traits import TRAITS, USER_ID

_MENTION = TRAITS.user_mention or re.compile(r"(?!)")
_LINK = re.compile(r"\[(?P<label>[^\]\n]*)\]\((?P<url>[^)\s]+)\)")
_PLACEHOLDER = "\x00{}\x00"


def _link(match: re.Match[str]) -> str:
    label, url = match["label"].strip(), match["url"]
    return url if not label or label == url else f"{label} ({url})"


def plain_links(text: str) -> str:
    """``[label](url)`` -> ``label (url)``: a link is shown with where it goes."""
    return _LINK.sub(_link, text)


def escape(text: str) -> str:
    """No markup of Teams' survives: ``<``/``>`` (and the ``&`` before them) escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def safe_text(
    text: str, names: Mapping[str, str] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """(text to send, its mention entities): only user mentions stay live (module doc).

    ``names``: display names by user id, for a mention written with its id as label.
    """
    kept: list[tuple[str, str]] = []

    def keep(match: re.Match[str]) -> str:
        user = match["id"]
        if not USER_ID.fullmatch(user):
            return match[0]  # not a user: escaped below like any other markup
        label = (names or {}).get(user) or match["label"] or user
        kept.append((user, " ".join(label.replace("<", "").replace(">", "").split())))
        return _PLACEHOLDER.format(len(kept) - 1)

    marked = _MENTION.sub(keep, text.replace("\x00", ""))
    out = escape(plain_links(marked))
    entities = []
    for index, (user, label) in enumerate(kept):
        tag = f"<at>{label}</at>"
        out = out.replace(_PLACEHOLDER.format(index), tag)
        entities.append({"type": "mention", "text": tag, "mentioned": {"id": user, "name": label}})
    return out, entities


def card_text(text: str) -> str:
    """User or model text inside an Adaptive Card TextBlock: links shown with their URL."""
    return plain_links(text)
