"""The bounds of a session summary as stored (text, topics, the users it was made from)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SUMMARY_CHARS", "SUMMARY_TOPICS", "SUMMARY_USERS", "TOPIC_CHARS", "bounded_summary"]

#: a stored summary's bounds: its text, its topics, each topic, the users it names
SUMMARY_CHARS = 4000
SUMMARY_TOPICS = 20
TOPIC_CHARS = 100
SUMMARY_USERS = 50


def bounded_summary(value: object) -> dict[str, Any] | None:
    """A summary's stored form within its bounds (None for anything not a summary):
    the text cut to :data:`SUMMARY_CHARS`, at most :data:`SUMMARY_TOPICS` topics of
    :data:`TOPIC_CHARS`, :data:`SUMMARY_USERS` users."""
    if not isinstance(value, Mapping) or not isinstance(value.get("summary"), str):
        return None
    out: dict[str, Any] = {"summary": _cut_text(value["summary"], SUMMARY_CHARS)}
    topics = value.get("topics")
    if isinstance(topics, list):
        out["topics"] = [_cut_text(str(t), TOPIC_CHARS) for t in topics[:SUMMARY_TOPICS]]
    if isinstance(value.get("updated_at"), str):
        out["updated_at"] = value["updated_at"]
    users = value.get("users")
    if isinstance(users, list):
        out["users"] = [str(u) for u in users[-SUMMARY_USERS:]]
    return out


def _cut_text(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
