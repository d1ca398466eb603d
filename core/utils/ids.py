"""Readable ids derived from names."""

from __future__ import annotations

import re


def slug(text: str, fallback: str) -> str:
    """``"Shopping List Workflow"`` -> ``"shopping-list-workflow"`` (``fallback`` if empty)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or fallback
