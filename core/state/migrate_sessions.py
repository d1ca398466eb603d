"""Moved to :mod:`core.governance.migrate`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.governance.migrate import DEFAULT_LIMIT as DEFAULT_LIMIT
from core.governance.migrate import SessionMigration as SessionMigration
from core.governance.migrate import TypedOwner as TypedOwner
from core.governance.migrate import migrate_session as migrate_session
from core.governance.migrate import migrate_sessions as migrate_sessions
from core.governance.migrate import schema_of_owner as schema_of_owner
