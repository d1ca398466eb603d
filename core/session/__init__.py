"""Agno's session objects and their parts (``core.session.summary``: session summaries)."""

__all__ = ["summary"]
