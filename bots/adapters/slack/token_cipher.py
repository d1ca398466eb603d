"""Encryption of stored Slack tokens: Fernet, several keys for rotation.

Keys come from ``STATEBOT_ENCRYPTION_KEYS`` (comma-separated Fernet keys, newest
first), read into a :class:`core.crypto.KeyRing` (the one key format, key-id and
validation rule, shared with state encryption): the first key encrypts, every key
decrypts (``MultiFernet``). Each stored value is labelled with the id of the key that
encrypted it (a short hash of the key, never the key), so rows still under an older key
are found and re-encrypted — on read, or all at once by ``statebot slack --reencrypt``.
Once no row names an old key, it can be dropped from the list.
"""

from __future__ import annotations

from collections.abc import Sequence

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from core.crypto import GENERATE_HINT, KeyRing, key_id
from core.exceptions import EncryptionKeyError

__all__ = [
    "GENERATE_HINT",
    "EncryptionKeyError",
    "TokenCipher",
    "TokenDecryptError",
    "key_id",
]


class TokenDecryptError(Exception):
    """A stored value cannot be decrypted with any configured key."""


class TokenCipher:
    """Encrypts with the first key, decrypts with any; names the key each value used."""

    __slots__ = ("_fernet", "_ring", "primary_id")

    def __init__(self, keys: Sequence[str]) -> None:
        self._ring = KeyRing(keys)  # EncryptionKeyError for a missing or malformed key
        self._fernet = MultiFernet([Fernet(text) for text in self._ring.texts])
        self.primary_id = self._ring.primary_id

    @classmethod
    def from_setting(cls, value: str) -> TokenCipher:
        """The cipher for a comma-separated key list (newest first)."""
        return cls(value.split(","))

    def encrypt(self, plaintext: str) -> str:
        """``plaintext`` encrypted under the primary key (a Fernet token, ASCII)."""
        return self._fernet.encrypt(plaintext.encode()).decode("ascii")

    def decrypt(self, token: str, stored_key_id: str) -> str:
        """The plaintext; TokenDecryptError naming the key id when no key opens it."""
        try:
            return self._fernet.decrypt(token.encode("ascii")).decode()
        except InvalidToken as exc:
            known = "is configured" if stored_key_id in self._ring else "is not configured"
            raise TokenDecryptError(
                f"a stored Slack installation was encrypted with key {stored_key_id}, which "
                f"{known} but cannot decrypt it; add that key to STATEBOT_ENCRYPTION_KEYS"
            ) from exc

    def is_current(self, stored_key_id: str) -> bool:
        """True when a value labelled ``stored_key_id`` is already under the primary key."""
        return stored_key_id == self.primary_id
