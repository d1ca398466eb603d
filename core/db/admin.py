"""Moved to :mod:`core.governance` (save, sessions, audit, transfer)."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.exceptions import ImportFileError as ImportFileError
from core.exceptions import ImportWriteError as ImportWriteError
from core.exceptions import NothingToUndoError as NothingToUndoError
from core.exceptions import RestoreSchemaError as RestoreSchemaError
from core.exceptions import SessionNotFoundError as SessionNotFoundError
from core.exceptions import StaleVersionError as StaleVersionError
from core.exceptions import UndoConflictError as UndoConflictError
from core.exceptions import UndoMigratedError as UndoMigratedError
from core.exceptions import VersionNotFoundError as VersionNotFoundError
from core.governance.audit import UndoResult as UndoResult
from core.governance.audit import audit_entries as audit_entries
from core.governance.audit import audit_log as audit_log
from core.governance.audit import describe as describe
from core.governance.audit import diff_versions as diff_versions
from core.governance.audit import undo_last as undo_last
from core.governance.save import load_session as load_session
from core.governance.sessions import MAX_TIMESTAMP as MAX_TIMESTAMP
from core.governance.sessions import delete_session as delete_session
from core.governance.sessions import dump_session as dump_session
from core.governance.sessions import health as health
from core.governance.sessions import list_sessions as list_sessions
from core.governance.sessions import replace_state as replace_state
from core.governance.sessions import reset_session as reset_session
from core.governance.sessions import restore_version as restore_version
from core.governance.sessions import session_history as session_history
from core.governance.sessions import summary as summary
from core.governance.transfer import MAX_VERSION as MAX_VERSION
from core.governance.transfer import ExportResult as ExportResult
from core.governance.transfer import export_jsonl as export_jsonl
from core.governance.transfer import export_line as export_line
from core.governance.transfer import import_jsonl as import_jsonl
from core.governance.transfer import parse_jsonl as parse_jsonl
from core.redaction import REDACTED as REDACTED
from core.redaction import redact as redact
from core.state.audit import AuditEntry as AuditEntry
