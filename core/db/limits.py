"""Limits every store checks on save: size of a session's state, length of a key.

Sizes are counted in UTF-8 bytes of the state's compact JSON text, so the number a
user sees is the same whatever backend holds the state. Checks run before anything
is written; a failed check leaves the store untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.db.codec import encode_delta as dump_delta
from core.db.codec import entry_bytes, largest_keys, state_bytes, utf8_len
from core.exceptions import InvalidIdError, StateLimitError

# re-exported: the size rules live in core/db/codec.py
__all__ = ["StateLimits", "dump_delta", "entry_bytes", "limits_of", "state_bytes"]


@dataclass(frozen=True, slots=True)
class StateLimits:
    """Upper bounds for one session's state."""

    max_state_bytes: int = 1_000_000
    max_key_length: int = 256
    #: UTF-8 bytes of a session, user or owner id: PostgreSQL's B-tree index entries
    #: hold at most ~2.7 KB, so a longer id would be accepted by Redis and SQLite and
    #: then refused by every snapshot into PostgreSQL
    max_id_bytes: int = 1024
    #: UTF-8 bytes of a session's own data (run history, name, audit trail), what every
    #: store refuses beyond; the audit trail has its own share of it (``audit_bytes``)
    #: and the run history the rest, so neither ever pushes the other out
    max_data_bytes: int = 393_216
    max_runs: int = 20
    #: audit entries kept per session (newest kept), independent of ``max_runs``
    max_audit_entries: int = 200
    #: UTF-8 bytes the audit trail may take of the session's data (at most half of
    #: ``max_data_bytes``: see ``audit_bytes``)
    max_audit_bytes: int = 131_072

    @property
    def audit_bytes(self) -> int:
        """Bytes of the session's data reserved for its audit trail."""
        return max(0, min(self.max_audit_bytes, self.max_data_bytes // 2))

    @property
    def run_bytes(self) -> int:
        """Bytes of the session's data left for its run history and name."""
        return self.max_data_bytes - self.audit_bytes

    def check_data(self, session_id: str, data: str | None) -> None:
        """StateLimitError when a session's data (JSON text) is too large."""
        if data is None:
            return
        size = utf8_len(data)
        if size > self.max_data_bytes:
            raise StateLimitError(
                f"session {session_id!r}: its run history, audit trail and data would be "
                f"{size:,} bytes; the limit is {self.max_data_bytes:,}. Nothing was written."
            )

    def check_ids(self, session_id: str, *others: str | None) -> None:
        """InvalidIdError for an id no durable store can hold (too long, NUL, not text)."""
        self.check_id("session id", session_id)
        for other in others:
            self.check_id("id", other)

    def check_id(self, name: str, value: str | None) -> None:
        """InvalidIdError, naming the id as ``name``, when no durable store can hold it."""
        if value is None:
            return
        if not isinstance(value, str):
            raise InvalidIdError(f"{name} must be a string, not {type(value).__name__}")
        if not value.isascii():
            try:
                value.encode()
            except UnicodeEncodeError:
                raise InvalidIdError(
                    f"{name} {value[:40]!r} is not valid text (it holds a lone "
                    "surrogate, which no store can encode). Nothing was written."
                ) from None
        if "\x00" in value:
            raise InvalidIdError(
                f"{name} {value[:40]!r} contains a NUL character, which PostgreSQL "
                "cannot store. Nothing was written."
            )
        size = utf8_len(value)
        if size > self.max_id_bytes:
            raise InvalidIdError(
                f"{name} {value[:40]!r}... is {size:,} bytes long; the limit is "
                f"{self.max_id_bytes:,}. Nothing was written."
            )

    def check_keys(self, session_id: str, keys: Iterable[str]) -> None:
        """StateLimitError naming the first top-level key that is too long."""
        for key in keys:
            if len(key) > self.max_key_length:
                raise StateLimitError(
                    f"session {session_id!r}: session_state key {key[:40]!r}... is "
                    f"{len(key)} characters long; the limit is {self.max_key_length}. "
                    "Nothing was written."
                )

    def check_size(self, session_id: str, texts: Mapping[str, str]) -> None:
        """StateLimitError when the whole state (JSON text per key) is too large."""
        size = state_bytes(texts)
        if size <= self.max_state_bytes:
            return
        named = ", ".join(f"{k!r} ({n:,} bytes)" for k, n in largest_keys(texts))
        raise StateLimitError(
            f"session {session_id!r}: session_state would be {size:,} bytes of JSON; "
            f"the limit is {self.max_state_bytes:,}. Largest keys: {named}. "
            "Nothing was written."
        )


def limits_of(store: object) -> StateLimits:
    """A store's limits (the defaults for a store that sets none)."""
    limits = getattr(store, "limits", None)
    return limits if isinstance(limits, StateLimits) else StateLimits()
