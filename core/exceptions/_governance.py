"""Errors of operations on stored sessions other than runs: admin, import, undo, budgets."""

from __future__ import annotations

from collections.abc import Sequence

from core.exceptions._run import RunError
from core.exceptions._storage import StoreError

__all__ = [
    "BudgetExceededError",
    "CredentialsUnavailableError",
    "ErasureInProgressError",
    "ImportFileError",
    "ImportWriteError",
    "NothingToUndoError",
    "RestoreSchemaError",
    "SessionNotFoundError",
    "UndoConflictError",
    "UndoError",
    "UndoMigratedError",
    "VersionNotFoundError",
]


class CredentialsUnavailableError(RuntimeError):
    """This store cannot keep people's credentials: it seals nothing at rest."""


_LISTED = 10  # session ids named in one error message


def _names(session_ids: Sequence[str]) -> str:
    if not session_ids:
        return "none"
    shown = ", ".join(repr(s) for s in session_ids[:_LISTED])
    more = len(session_ids) - _LISTED
    return f"{shown} and {more} more" if more > 0 else shown


def _duration(seconds: float) -> str:
    minutes = max(1, int(seconds + 59) // 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


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


class ErasureInProgressError(RunError):
    """The user's data is being erased: their runs are refused until it ends, before
    anything of the run happens (``core/db/user_blocks.py``)."""

    def __init__(self, user_id: str) -> None:
        super().__init__(
            f"the data of user {user_id!r} is being erased right now, so their messages "
            "are not taken until the erasure ends. Nothing was run and nothing was saved"
        )
        self.user_id = user_id


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
