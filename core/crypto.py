"""Key rings: several secret keys, newest first, each known by a short non-secret id.

One format and one rule for every secret Statebot encrypts (Slack tokens with
``bots/adapters/slack/token_cipher.py``, session state with ``core/db/cipher.py``):

* a key is 32 random bytes written as url-safe base64 (a Fernet key: ``python -c "from
  cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"``);
* a ring is a list of keys, newest first: the first encrypts, every key decrypts;
* each key is named by its id, the first 12 hex digits of the SHA-256 of its text, so a
  stored value can say which key made it (rotation finds what is still under an old key)
  without telling anything about the key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterator, Sequence

from core.exceptions import EncryptionKeyError

__all__ = ["GENERATE_HINT", "EncryptionKeyError", "KeyRing", "key_id"]

GENERATE_HINT = (
    'generate one with: python -c "from cryptography.fernet import Fernet; '
    'print(Fernet.generate_key().decode())"'
)

KEY_BYTES = 32


def key_id(key: str) -> str:
    """A stable, non-secret name for ``key``: the first 12 hex digits of its SHA-256."""
    return hashlib.sha256(key.strip().encode()).hexdigest()[:12]


def _decode(key: str, position: int) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(key.encode("ascii"))
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raw = b""
    if len(raw) != KEY_BYTES:
        raise EncryptionKeyError(
            f"encryption key #{position} is not a Fernet key "
            f"(32 url-safe base64-encoded bytes); {GENERATE_HINT}"
        )
    return raw


class KeyRing:
    """Keys newest first, validated once; ``texts``/``secrets``/``ids`` in that order."""

    __slots__ = ("_by_id", "ids", "secrets", "texts")

    def __init__(self, keys: Sequence[str]) -> None:
        texts = [k.strip() for k in keys if k.strip()]
        if not texts:
            raise EncryptionKeyError(f"no encryption key given; {GENERATE_HINT}")
        secrets = [_decode(text, n) for n, text in enumerate(texts, start=1)]
        self.texts: tuple[str, ...] = tuple(texts)
        self.secrets: tuple[bytes, ...] = tuple(secrets)
        self.ids: tuple[str, ...] = tuple(key_id(t) for t in texts)
        # the first occurrence wins: a key listed twice is still one key
        self._by_id: dict[str, bytes] = {}
        for kid, secret in zip(self.ids, secrets, strict=True):
            self._by_id.setdefault(kid, secret)

    @classmethod
    def from_setting(cls, value: str) -> KeyRing:
        """The ring of a comma-separated key list (newest first)."""
        return cls(value.split(","))

    @property
    def primary_id(self) -> str:
        """The id of the key that encrypts."""
        return self.ids[0]

    def secret(self, kid: str) -> bytes | None:
        """The raw key named ``kid``; None when it is not in the ring."""
        return self._by_id.get(kid)

    def __contains__(self, kid: object) -> bool:
        return kid in self._by_id

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        """(id, raw key) pairs, newest first, each key once."""
        return iter(self._by_id.items())

    def __len__(self) -> int:
        return len(self._by_id)

    def __repr__(self) -> str:
        return f"KeyRing(ids={list(self._by_id)!r})"  # ids only: never the keys
