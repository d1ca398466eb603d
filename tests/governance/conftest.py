"""Governance runs over every store: the storage tests' ``backend`` and ``store`` fixtures."""

from __future__ import annotations

from tests.db.conftest import backend, sqlite_db, store

__all__ = ["backend", "sqlite_db", "store"]  # the fixtures, imported for pytest
