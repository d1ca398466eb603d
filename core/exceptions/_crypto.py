"""Errors of encryption at rest: a key that cannot be used, a value no key opens."""

from __future__ import annotations

from core.exceptions._storage import StoreError

__all__ = [
    "EncryptionKeyError",
    "StateDecryptError",
]


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
