"""Key rings: several secret keys, newest first, each known by a short non-secret id.

One format and one rule for every secret Statebot encrypts (Slack tokens with
``bots/adapters/slack/token_cipher.py``, session state with ``core/db/cipher.py``):

* a key is 32 random bytes written as url-safe base64 (a Fernet key: ``python -c "from
  cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"``), and a
  text secret (the web console's) holds at least as much: :func:`weak_secret_reason` is
  the one rule that refuses placeholders and weak values of either;
* a ring is a list of keys, newest first: the first encrypts, every key decrypts;
* each key is named by its id, the first 12 hex digits of the SHA-256 of its text, so a
  stored value can say which key made it (rotation finds what is still under an old key)
  without telling anything about the key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
from collections.abc import Iterator, Sequence

from core.exceptions import EncryptionKeyError

__all__ = [
    "GENERATE_HINT",
    "SECRET_HINT",
    "EncryptionKeyError",
    "KeyRing",
    "check_secret",
    "key_id",
    "weak_secret_reason",
]

GENERATE_HINT = (
    'generate one with: python -c "from cryptography.fernet import Fernet; '
    'print(Fernet.generate_key().decode())"'
)
SECRET_HINT = 'make one with: python -c "import secrets; print(secrets.token_urlsafe(32))"'

KEY_BYTES = 32
#: what a secret must hold at least: 32 random bytes, as a Fernet key or token_urlsafe(32)
MIN_SECRET_BITS = 8 * KEY_BYTES
#: words of the placeholders docs and examples use; a random secret of the lengths asked
#: for holds one by chance with a probability under 1e-7
_PLACEHOLDER_WORDS = ("change", "replace", "example", "placeholder", "secret", "random", "insert")
#: fewer distinct characters (or bytes) than this is a pattern, not randomness: 43 random
#: url-safe characters, or 32 random bytes, show about 30
_MIN_DISTINCT = 10
_HEX = frozenset("0123456789abcdef")
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=")


def weak_secret_reason(text: str) -> str | None:
    """Why ``text`` cannot be a secret of at least 32 random bytes, or None when it can be.

    The one rule for every secret setting (``check_secret`` for text secrets, each key of
    a :class:`KeyRing`): a placeholder word, a few characters repeated, or too short for
    its alphabet (``len × log2(alphabet)`` under 256 bits, the alphabet being hex, base64
    or any printable character). An estimate: it refuses what is surely weak, and never
    what ``secrets.token_urlsafe(32)``, ``token_hex(32)`` or a Fernet key gives.
    """
    lowered = text.lower()
    if any(word in lowered for word in _PLACEHOLDER_WORDS):
        return "is a placeholder, not a random secret"
    if len(set(text)) < _MIN_DISTINCT or _repeats(text, 8):
        return "repeats characters or a pattern; it is not random"
    alphabet = 16 if set(lowered) <= _HEX else 64 if set(text) <= _BASE64 else 95
    bits = len(text) * math.log2(alphabet)
    if bits < MIN_SECRET_BITS:
        needed = math.ceil(MIN_SECRET_BITS / math.log2(alphabet))
        return f"is too short to hold 32 random bytes (at least {needed} such characters)"
    return None


def _repeats(value: str | bytes, width: int) -> bool:
    """Whether a run of ``width`` characters (bytes) occurs twice: a pattern. In random
    values of the sizes asked for, that happens with a probability under 1e-6."""
    seen = set()
    for start in range(len(value) - width + 1):
        part = value[start : start + width]
        if part in seen:
            return True
        seen.add(part)
    return False


def check_secret(name: str, text: str) -> None:
    """ValueError naming ``name`` (never the value) and how to make a secret, when
    ``text`` is too weak to sign or seal anything (:func:`weak_secret_reason`)."""
    reason = weak_secret_reason(text)
    if reason is not None:
        raise ValueError(f"{name} {reason}; {SECRET_HINT}")


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
    # the right length is not enough: the 32 bytes must be random, not a text or a pattern
    reason = weak_secret_reason(key)
    if reason is None and raw.isascii() and raw.decode("ascii").isprintable():
        reason = "encodes a text, not random bytes"
    if reason is None and (len(set(raw)) < _MIN_DISTINCT or _repeats(raw, 6)):
        reason = "repeats bytes or a pattern; it is not random"
    if reason is not None:
        raise EncryptionKeyError(f"encryption key #{position} {reason}; {GENERATE_HINT}")
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
