"""Agno's older storage paths (``core.storage.sqlite``, ``core.storage.postgres``),
kept so code written against them runs; both name the stores in ``core.db``."""

from __future__ import annotations

__all__ = ["postgres", "sqlite"]
