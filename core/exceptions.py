"""Every error the runtime raises on purpose, in one place (the chat layer maps them to replies).

The hierarchy::

    Exception
    ├── RunError                          a run could not complete
    │   ├── NoModelError                  free text, but no model configured
    │   ├── BudgetExceededError           a daily token or tool-call budget is used up
    │   ├── ToolCallLimitError            too many tool-call rounds in one run
    │   ├── UnknownToolError (LookupError)    a tool name the agent does not have
    │   ├── ToolArgumentError (ValueError)    arguments that do not fit a tool
    │   ├── RunTimeoutError               the run passed its deadline (run_timeout)
    │   ├── DependencyError               a callable dependency raised
    │   ├── RouterSelectionError (ValueError) a Router selector named no step
    │   ├── ParallelStateConflictError    two Parallel branches changed one value
    │   ├── SchemaVersionError            stored state newer than the code's schema version
    │   └── StateMigrationError           a state migration raised or gave an invalid state
    ├── StoreError                        every storage error
    │   ├── StoreUnavailableError         Redis / the database cannot be reached
    │   │   └── OutcomeUnknownError       failed while committing: applied or not, unknown
    │   ├── StaleVersionError             saved on an old version; nothing written
    │   │   └── LeaseLostError            the run lease expired before the save
    │   ├── LockTimeoutError              waited too long for a session's run lease
    │   │   └── SessionBusyError          too many runs already wait for the session
    │   ├── StateLimitError               a state over a configured size limit
    │   ├── InvalidIdError (ValueError)   an id no durable store can hold
    │   ├── VersionConflictError          one version number, two contents
    │   ├── SessionNotFoundError (LookupError)  admin: no such session
    │   ├── VersionNotFoundError (LookupError)  admin: no such version in the history
    │   ├── ImportFileError (ValueError)  admin: an import file that cannot be used
    │   ├── ImportWriteError              admin: an import stopped at a failed write
    │   ├── RestoreSchemaError            admin: a restore whose schema version is unknown
    │   └── StateDecryptError             a stored value no configured key opens
    ├── UndoError                         an undo that cannot be done (nothing changed)
    │   ├── NothingToUndoError (LookupError)  the caller has no change left to undo
    │   └── UndoConflictError             a later change touched what undo would revert
    │       └── UndoMigratedError         the state was migrated since the change
    ├── ModelError                        the model could not answer
    │   ├── ModelTimeoutError             ... within its timeout
    │   └── ScriptExhaustedError          ScriptedModel called past its script
    └── ValueError
        ├── StateValueError               a state value that cannot be stored (not JSON)
        │   └── StateSchemaError          a state that does not fit session_state_schema
        ├── ToolRefusedError              a tool or hook refuses a call (message shown as is)
        ├── ScheduleError                 a schedule request that cannot be accepted
        │   └── ScheduleLimitError        a session already holds its maximum of schedules
        └── EncryptionKeyError            an encryption key that is missing or malformed

Modules that used to define these re-export them (``from core.db.base import
StoreError`` still works and names the same class).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "BudgetExceededError",
    "DependencyError",
    "EncryptionKeyError",
    "ImportFileError",
    "ImportWriteError",
    "InvalidIdError",
    "LeaseLostError",
    "LockTimeoutError",
    "ModelError",
    "ModelTimeoutError",
    "NoModelError",
    "NothingToUndoError",
    "OutcomeUnknownError",
    "ParallelStateConflictError",
    "RestoreSchemaError",
    "RouterSelectionError",
    "RunError",
    "RunTimeoutError",
    "ScheduleError",
    "ScheduleLimitError",
    "SchemaVersionError",
    "ScriptExhaustedError",
    "SessionBusyError",
    "SessionNotFoundError",
    "StaleVersionError",
    "StateDecryptError",
    "StateLimitError",
    "StateMigrationError",
    "StateSchemaError",
    "StateValueError",
    "StoreError",
    "StoreUnavailableError",
    "ToolArgumentError",
    "ToolCallLimitError",
    "ToolRefusedError",
    "UndoConflictError",
    "UndoError",
    "UndoMigratedError",
    "UnknownToolError",
    "VersionConflictError",
    "VersionNotFoundError",
]

# ---------------------------------------------------------------------------- runs


class RunError(Exception):
    """A run could not complete."""


class NoModelError(RunError):
    """Free text was sent to an agent that has no model configured."""


class ToolCallLimitError(RunError):
    """The model kept calling tools past the per-run cap of tool-call rounds."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the model asked for tools more than {limit} rounds in one run; "
            "stopped (state changes made so far are saved)"
        )
        self.limit = limit


class UnknownToolError(RunError, LookupError):
    """A tool name that the agent does not have."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown tool {name!r}; available: {', '.join(sorted(known)) or 'none'}")
        self.name = name
        self.known = known


class ToolArgumentError(RunError, ValueError):
    """Arguments that do not fit a tool's parameters (bad JSON, wrong types, missing)."""


class RunTimeoutError(RunError):
    """A run passed its deadline (``run_timeout``) and was stopped.

    Tool batches saved before the deadline stay saved (``saved`` says whether there
    were any); the call in flight was undone and nothing was saved after the deadline.
    """

    def __init__(self, timeout: float, *, saved: bool, what: str = "the run") -> None:
        kept = (
            "changes saved before the deadline are kept; the step in progress was undone"
            if saved
            else "nothing was saved"
        )
        super().__init__(f"{what} took longer than {timeout:g} s and was stopped: {kept}")
        self.timeout = timeout
        self.saved = saved


class DependencyError(RunError):
    """A callable dependency raised while it was being resolved for a run."""

    def __init__(self, key: str, cause: BaseException) -> None:
        super().__init__(
            f"dependency {key!r} could not be resolved: {type(cause).__name__}: {cause}"
        )
        self.key = key


class RouterSelectionError(RunError, ValueError):
    """A Router's selector returned something that names no step."""


class ParallelStateConflictError(RunError):
    """Two Parallel branches changed the same part of the session state differently."""

    def __init__(self, path: Sequence[str], branches: tuple[str, str]) -> None:
        where = "session_state" + "".join(f"[{key!r}]" for key in path)
        super().__init__(
            f"Parallel branches {branches[0]!r} and {branches[1]!r} both changed {where} "
            "to different values; nothing from the Parallel was applied"
        )
        self.path = list(path)
        self.branches = branches


# ---------------------------------------------------------------------------- storage


class StoreError(Exception):
    """Base class of every storage error."""


class StoreUnavailableError(StoreError):
    """The backing service (Redis, the database) cannot be reached."""


class OutcomeUnknownError(StoreUnavailableError):
    """The store failed while committing: the write may or may not have been applied.

    Only idempotent operations may be retried after it (a snapshot upsert is: the same
    version and save id again is a no-op).
    """


class StaleVersionError(StoreError):
    """A save was based on a version that is no longer current; nothing was written."""

    def __init__(self, session_id: str, expected: int, actual: int | None) -> None:
        super().__init__(
            f"session {session_id!r} is at version {actual}, not {expected}: "
            "another run saved first, nothing was written"
        )
        self.session_id = session_id
        self.expected = expected
        self.actual = actual


class LeaseLostError(StaleVersionError):
    """A save under a run lease that expired (and may have been taken over); nothing written."""

    def __init__(self, session_id: str, version: int) -> None:
        StoreError.__init__(
            self,
            f"session {session_id!r}: the run lease expired before the save; another run "
            "may hold it now, so nothing was written",
        )
        self.session_id = session_id
        self.expected = version
        self.actual = version


class LockTimeoutError(StoreError):
    """Waiting for a session's run lock took longer than allowed; nothing was changed."""


class SessionBusyError(LockTimeoutError):
    """Too many runs already wait for this session; refused at once, nothing was changed."""

    def __init__(self, session_id: str, max_waiters: int) -> None:
        super().__init__(
            f"session {session_id!r} is busy: {max_waiters} requests are already waiting "
            "for it (max_waiters); nothing was changed, try again in a moment"
        )
        self.session_id = session_id
        self.max_waiters = max_waiters


class StateLimitError(StoreError):
    """A state exceeds a configured limit (size of a session, length of a key)."""


class InvalidIdError(StoreError, ValueError):
    """An id (session, user, owner) that no durable store can hold: too long, or with NUL."""


class VersionConflictError(StoreError):
    """One version number names two different contents (a hot store fell behind).

    Raised by a snapshot upsert that finds the durable store holding the same version
    from a different save; nothing is overwritten.
    """

    def __init__(self, session_id: str, version: int, durable_save: str, hot_save: str) -> None:
        super().__init__(
            f"session {session_id!r}: version {version} in the durable store comes from save "
            f"{durable_save!r}, the hot store's from save {hot_save!r}; the durable copy "
            "was kept and nothing was overwritten"
        )
        self.session_id = session_id
        self.version = version


# ---------------------------------------------------------------------------- admin

_LISTED = 10  # session ids named in one error message


def _names(session_ids: Sequence[str]) -> str:
    if not session_ids:
        return "none"
    shown = ", ".join(repr(s) for s in session_ids[:_LISTED])
    more = len(session_ids) - _LISTED
    return f"{shown} and {more} more" if more > 0 else shown


class SessionNotFoundError(StoreError, LookupError):
    """The named session does not exist."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no session {session_id!r}")
        self.session_id = session_id


class VersionNotFoundError(StoreError, LookupError):
    """The session exists but keeps no such version in its history."""

    def __init__(self, session_id: str, version: int, kept: Sequence[int]) -> None:
        have = f"versions kept: {min(kept)}..{max(kept)}" if kept else "no history is kept"
        super().__init__(f"session {session_id!r} has no version {version} ({have})")
        self.session_id = session_id
        self.version = version


class ImportFileError(StoreError, ValueError):
    """An import file that cannot be used; nothing from it was written."""

    def __init__(self, line: int | None, reason: str) -> None:
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{reason}; nothing was imported")
        self.line = line


class ImportWriteError(StoreError):
    """A valid import stopped at a failed write; names what was and was not written."""

    def __init__(
        self, session_id: str, reason: str, written: list[str], not_written: list[str]
    ) -> None:
        super().__init__(
            f"import stopped: writing session {session_id!r} failed ({reason}). "
            f"written ({len(written)}): {_names(written)}; "
            f"not written ({len(not_written)}): {_names(not_written)}. Each written session "
            "is complete; import the file again with replace to finish"
        )
        self.session_id = session_id
        self.written = written
        self.not_written = not_written


# ---------------------------------------------------------------------------- models


class ModelError(Exception):
    """The model could not answer (network, timeout, server error after retries)."""


class ModelTimeoutError(ModelError):
    """The model did not answer within its timeout."""


class ScriptExhaustedError(ModelError):
    """The model was called more times than the script has turns."""


# ---------------------------------------------------------------------------- values


class StateValueError(ValueError):
    """A state value that cannot be stored (not JSON-serializable)."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"session_state[{key!r}] cannot be stored: {reason}")
        self.key = key


class ToolRefusedError(ValueError):
    """Raised by a tool or hook to refuse a call; its message is reported as is (no class name)."""


class ScheduleError(ValueError):
    """A schedule request that cannot be accepted; nothing was stored."""


class ScheduleLimitError(ScheduleError):
    """A session already holds as many schedules as it may."""

    def __init__(self, session_id: str, limit: int) -> None:
        super().__init__(
            f"session {session_id!r} already has {limit} schedules (the limit); cancel one "
            "first. Nothing was scheduled."
        )
        self.session_id = session_id
        self.limit = limit


# ---------------------------------------------------------------------------- encryption


class EncryptionKeyError(ValueError):
    """A configured encryption key is missing or malformed (``core/crypto.py``)."""


class StateDecryptError(StoreError):
    """A stored value that no configured key opens; nothing is served in its place.

    ``key_id`` names the key the value was sealed with (a non-secret hash).
    """

    def __init__(self, session_id: str, key_id: str, reason: str) -> None:
        super().__init__(
            f"session {session_id!r}: a stored value sealed with key {key_id} {reason}"
        )
        self.session_id = session_id
        self.key_id = key_id


# ---------------------------------------------------------------------------- state schemas


class SchemaVersionError(RunError):
    """The stored state is at a schema version newer than the code's; nothing was changed."""

    def __init__(self, session_id: str, stored: int, code: int, schema: str) -> None:
        super().__init__(
            f"session {session_id!r} holds state of schema version {stored}, newer than "
            f"this code's {schema} (version {code}); it was not run and nothing was changed: "
            "run the newer code, or migrate the stored state back by hand"
        )
        self.session_id = session_id
        self.stored = stored
        self.code = code


class StateMigrationError(RunError):
    """A state migration raised, or its result does not fit the schema; nothing was changed."""

    def __init__(self, session_id: str, step: int | None, reason: str) -> None:
        where = f"migration to version {step}" if step is not None else "the migrated state"
        super().__init__(
            f"session {session_id!r}: {where} failed ({reason}); the session was not run "
            "and nothing was changed"
        )
        self.session_id = session_id
        self.step = step


class StateSchemaError(StateValueError):
    """A state that does not fit the owner's ``session_state_schema``; nothing of it is kept.

    ``key``: the top-level key of the first problem; ``errors``: each problem as
    ``(path, message)``, the path written as ``session_state['tasks'][0]['status']``.
    """

    def __init__(self, schema: str, errors: Sequence[tuple[str, str]], key: str) -> None:
        shown = "; ".join(f"{path}: {message}" for path, message in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        ValueError.__init__(self, f"the state does not fit the schema {schema}: {shown}{more}")
        self.key = key
        self.errors = list(errors)


# ---------------------------------------------------------------------------- budgets


class BudgetExceededError(RunError):
    """A daily usage budget is used up; the run was refused before anything happened.

    ``scope`` is "session", "user" or "channel", ``scope_id`` its id, ``what``
    "tokens" or "tool calls"; ``resets_at`` (ISO 8601, UTC) is when the day's counters
    start again, ``resets_in`` the seconds until then.
    """

    def __init__(
        self,
        *,
        scope: str,
        scope_id: str,
        what: str,
        used: int,
        limit: int,
        resets_at: str,
        resets_in: float,
    ) -> None:
        budget = {"tokens": "token", "tool calls": "tool-call"}.get(what, what) + " budget"
        whose = {"session": "this conversation's", "user": "your", "channel": "this channel's"}
        subject = f"{whose.get(scope, f'the {scope}')} daily {budget}"
        super().__init__(
            f"{subject[0].upper()}{subject[1:]} is used up: {used:,} of {limit:,} {what} "
            f"today. It resets at 00:00 UTC (in {_duration(resets_in)}). Nothing was run."
        )
        self.scope = scope
        self.scope_id = scope_id
        self.what = what
        self.used = used
        self.limit = limit
        self.resets_at = resets_at
        self.resets_in = resets_in


def _duration(seconds: float) -> str:
    minutes = max(1, int(seconds + 59) // 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


class UndoError(Exception):
    """An undo that cannot be done; nothing was changed."""


class NothingToUndoError(UndoError, LookupError):
    """The caller has no change in the session's audit trail that undo could revert."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"Nothing to undo: {reason}. Nothing was changed.")
        self.session_id = session_id
        self.reason = reason


class UndoConflictError(UndoError):
    """A later change touched what the undo would revert; nothing was changed.

    ``version`` is the change that was to be undone, ``path`` the JSON path in
    conflict (slash-separated), ``later_version`` / ``later_user`` the later change
    (None when the conflict was found in the values alone: a save with no audit entry).
    """

    def __init__(
        self,
        session_id: str,
        version: int,
        path: str,
        later_version: int | None,
        later_user: str | None,
    ) -> None:
        if later_version is None:
            why = f"the value at {path or 'the top level'} is no longer what v{version} wrote"
        else:
            who = later_user or "an unknown user"
            why = f"v{later_version} by {who} later changed {path or 'the whole state'}"
        super().__init__(
            f"Can't undo your change v{version}: {why}. Nothing was changed; "
            "undo the later change first, or ask an admin to restore a version."
        )
        self.session_id = session_id
        self.version = version
        self.path = path
        self.later_version = later_version
        self.later_user = later_user


class RestoreSchemaError(StoreError):
    """A restore of a typed session to a version whose schema version the audit trail
    can no longer vouch for (its entries since then were dropped); nothing was changed."""

    def __init__(self, session_id: str, version: int, oldest: int | None, schema: int) -> None:
        reach = f"its oldest entry is v{oldest}" if oldest is not None else "it holds no entry"
        super().__init__(
            f"Can't restore {session_id!r} to v{version}: the audit trail no longer reaches "
            f"back to it ({reach}), so it cannot tell whether v{version} is in schema "
            f"version {schema} or an older one, and a state labelled with the wrong version "
            "would never be migrated. Nothing was changed; restore a version the trail "
            "still covers."
        )
        self.session_id = session_id
        self.version = version


class UndoMigratedError(UndoConflictError):
    """The state was migrated to a new schema version after the change; nothing was changed.

    The change's inverse patch is written against the old schema, so it is not applied;
    an admin restores a version instead (which the next run migrates again).
    """

    def __init__(
        self, session_id: str, version: int, migrated: int, schemas: tuple[int, int] | None
    ) -> None:
        how = f" from schema version {schemas[0]} to {schemas[1]}" if schemas else ""
        UndoError.__init__(
            self,
            f"Can't undo your change v{version}: the state was migrated{how} since (v{migrated}), "
            "so the change no longer applies as it was made. Nothing was changed; ask an admin "
            "to restore a version instead (/state restore).",
        )
        self.session_id = session_id
        self.version = version
        self.path = ""
        self.later_version = migrated
        self.later_user = None
