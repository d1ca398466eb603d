"""Errors of session state: values that cannot be stored, schemas and their migrations."""

from __future__ import annotations

from collections.abc import Sequence

from core.exceptions._run import RunError

__all__ = [
    "SchemaVersionError",
    "StateMigrationError",
    "StateSchemaError",
    "StateValueError",
]


class StateValueError(ValueError):
    """A state value that cannot be stored (not JSON-serializable)."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"session_state[{key!r}] cannot be stored: {reason}")
        self.key = key


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
