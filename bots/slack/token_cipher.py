"""Encryption of stored Slack tokens: Fernet, several keys for rotation.

Keys come from ``STATEBOT_ENCRYPTION_KEYS`` (comma-separated Fernet keys, newest
first): the first key encrypts, every key decrypts (``MultiFernet``). Each stored
value is labelled with the id of the key that encrypted it (a short hash of the key,
never the key), so rows still under an older key are found and re-encrypted — on read,
or all at once by ``statebot slack --reencrypt``. Once no row names an old key, it
can be dropped from the list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

GENERATE_HINT = (
    'generate one with: python -c "from cryptography.fernet import Fernet; '
    'print(Fernet.generate_key().decode())"'
)


class EncryptionKeyError(ValueError):
    """The configured keys are missing or malformed."""


class TokenDecryptError(Exception):
    """A stored value cannot be decrypted with any configured key."""


def key_id(key: str) -> str:
    """A stable, non-secret name for ``key``: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(key.encode()).hexdigest()[:12]


class TokenCipher:
    """Encrypts with the first key, decrypts with any; names the key each value used."""

    __slots__ = ("_fernet", "_known", "primary_id")

    def __init__(self, keys: Sequence[str]) -> None:
        keys = [k.strip() for k in keys if k.strip()]
        if not keys:
            raise EncryptionKeyError(f"no encryption key given; {GENERATE_HINT}")
        fernets: list[Fernet] = []
        for position, key in enumerate(keys, start=1):
            try:
                fernets.append(Fernet(key))
            except ValueError as exc:
                raise EncryptionKeyError(
                    f"encryption key #{position} is not a Fernet key "
                    f"(32 url-safe base64-encoded bytes); {GENERATE_HINT}"
                ) from exc
        self._fernet = MultiFernet(fernets)
        self._known = frozenset(key_id(k) for k in keys)
        self.primary_id = key_id(keys[0])

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
            known = "is configured" if stored_key_id in self._known else "is not configured"
            raise TokenDecryptError(
                f"a stored Slack installation was encrypted with key {stored_key_id}, which "
                f"{known} but cannot decrypt it; add that key to STATEBOT_ENCRYPTION_KEYS"
            ) from exc

    def is_current(self, stored_key_id: str) -> bool:
        """True when a value labelled ``stored_key_id`` is already under the primary key."""
        return stored_key_id == self.primary_id
