"""Encryption of session state at rest: each stored value sealed on its own, AES-256-GCM.

A store given a :class:`StateCipher` seals what it writes and opens what it reads, at
its own seam, so tools and every caller of the store API see plaintext. What is sealed:
the JSON text of each top-level state value (a Redis hash field, a member of the SQL
``state`` column and of every history row) and the session's data text (run history,
audit entries). Ids, versions, meta, timestamps and key names stay in the clear.

A sealed value is itself a JSON string, so stores keep splicing texts as they are::

    "$sb1:<key id>:<base64(nonce ‖ ciphertext ‖ tag)>"

* the key: AES-256-GCM under a key derived (HKDF-SHA256) from a ring key
  (``core/crypto.py``), so the same key text used for Slack tokens (Fernet) never
  serves two algorithms; a random 96-bit nonce per value;
* the associated data binds a value to its session id and its top-level key (or to
  "data"): a sealed value copied into another session or key does not open;
* the key id says which key sealed it; the newest key seals, any key in the ring opens.
  A value under a key that is not in the ring raises StateDecryptError naming the key id
  (never an empty state).

Not an envelope with per-session data keys: each value is sealed directly under the
(derived) ring key. Rotation re-seals values (``core/governance/rekey.py``), which a data-key
scheme would avoid only at the price of a wrapped key per session to store and fetch.

Plaintext stored before encryption was turned on (any text without the marker) opens
as itself and is sealed when next written or by the rekey command.
"""

from __future__ import annotations

import binascii
import dataclasses
import operator
import os
from collections.abc import Mapping, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from core.crypto import KeyRing
from core.db.records import SessionRecord
from core.exceptions import StateDecryptError

__all__ = ["MARKER", "StateCipher", "refuse_sealed", "sealed_key_id"]

#: how a sealed value's JSON text starts (the quote opens the JSON string)
MARKER = '"$sb1:'
_ID_LEN = 12
_HEAD = len(MARKER) + _ID_LEN + 1  # marker, key id, ':'
_NONCE = 12
_INFO = b"statebot session state at rest v1"
_IS_SEALED = operator.methodcaller("startswith", MARKER)


def _aad(session_id: str, field: str | None) -> bytes:
    """What a sealed value is bound to: its session and key (None: the session's data)."""
    if field is None:
        return b"d\x00" + session_id.encode()
    return _state_aad(session_id) + field.encode()


def _state_aad(session_id: str) -> bytes:
    """The start of the associated data of every state value of a session."""
    return b"s\x00" + session_id.encode() + b"\x00"


def sealed_key_id(text: str) -> str | None:
    """The id of the key that sealed ``text``; None for plaintext."""
    if text.startswith(MARKER) and len(text) > _HEAD:
        return text[len(MARKER) : len(MARKER) + _ID_LEN]
    return None


def refuse_sealed(session_id: str, texts: Mapping[str, str], data: str = "") -> None:
    """For a store without keys: StateDecryptError when it meets a sealed value.

    A process started without ``STATEBOT_STATE_KEYS`` must not serve ciphertext as if
    it were the state (nor write it back as a value): it says what is missing instead.
    """
    if not data.startswith(MARKER) and not any(map(_IS_SEALED, texts.values())):
        return  # the usual case, at C speed
    for text in (data, *texts.values()):
        kid = sealed_key_id(text)
        if kid is not None:
            raise StateDecryptError(
                session_id,
                kid,
                "cannot be read by a store built without state keys; give every "
                "process the same STATEBOT_STATE_KEYS",
            )


class StateCipher:
    """Seals with the newest key of a ring, opens with any; texts without the marker
    (plaintext from before encryption) pass through."""

    __slots__ = ("_aeads", "_prefix", "primary_id", "ring")

    def __init__(self, keys: KeyRing | Sequence[str]) -> None:
        self.ring = keys if isinstance(keys, KeyRing) else KeyRing(keys)
        self._aeads = {kid: AESGCM(_derive(secret)) for kid, secret in self.ring}
        self.primary_id = self.ring.primary_id
        self._prefix = f"{MARKER}{self.primary_id}:"

    @classmethod
    def from_setting(cls, value: str) -> StateCipher:
        """The cipher of a comma-separated key list (newest first)."""
        return cls(KeyRing.from_setting(value))

    def __repr__(self) -> str:
        return f"StateCipher(ids={list(self._aeads)!r})"

    # -- one text ---------------------------------------------------------------------
    def seal(self, text: str, session_id: str, field: str | None) -> str:
        """``text`` sealed under the newest key, as a JSON string text."""
        return self._seal(text, _aad(session_id, field))

    def _seal(self, text: str, aad: bytes) -> str:
        nonce = os.urandom(_NONCE)
        sealed = self._aeads[self.primary_id].encrypt(nonce, text.encode(), aad)
        return self._prefix + binascii.b2a_base64(nonce + sealed, newline=False).decode() + '"'

    def open(self, text: str, session_id: str, field: str | None) -> str:
        """The plaintext of a sealed ``text``; any other text as it is."""
        if not text.startswith(MARKER):
            return text
        return self._open(text, _aad(session_id, field), session_id, field)

    def _open(self, text: str, aad: bytes, session_id: str, field: str | None) -> str:
        kid = text[len(MARKER) : len(MARKER) + _ID_LEN]
        aead = self._aeads.get(kid)
        if aead is None:
            raise StateDecryptError(
                session_id,
                kid,
                "is not among the configured keys (STATEBOT_STATE_KEYS has "
                f"{', '.join(self._aeads)}); add that key back to read it",
            )
        try:
            raw = binascii.a2b_base64(text[_HEAD:-1])
            plain = aead.decrypt(raw[:_NONCE], raw[_NONCE:], aad)
        except (InvalidTag, binascii.Error, ValueError) as exc:
            where = "its data" if field is None else f"key {field!r}"
            raise StateDecryptError(
                session_id, kid, f"does not open ({where} was altered or moved)"
            ) from exc
        return plain.decode()

    def is_current(self, text: str) -> bool:
        """True when ``text`` is sealed under the newest key (nothing for rekey to do)."""
        return text.startswith(self._prefix)

    def renewed(self, text: str, session_id: str, field: str | None) -> str | None:
        """``text`` sealed under the newest key when it is not (plaintext included);
        None when it already is. StateDecryptError when no configured key opens it."""
        if self.is_current(text):
            return None
        return self.seal(self.open(text, session_id, field), session_id, field)

    # -- a session's texts ------------------------------------------------------------
    def seal_texts(self, session_id: str, texts: Mapping[str, str]) -> dict[str, str]:
        """Every key text sealed (a save's ``changed``: always sealed, whatever it holds)."""
        base = _state_aad(session_id)
        return {k: self._seal(t, base + k.encode()) for k, t in texts.items()}

    def seal_missing(self, session_id: str, texts: Mapping[str, str]) -> Mapping[str, str]:
        """Texts not sealed yet sealed, sealed ones as they are (snapshots, imports)."""
        if all(t.startswith(MARKER) for t in texts.values()):
            return texts
        base = _state_aad(session_id)
        return {
            k: t if t.startswith(MARKER) else self._seal(t, base + k.encode())
            for k, t in texts.items()
        }

    def open_texts(self, session_id: str, texts: Mapping[str, str]) -> dict[str, str]:
        """Every key text opened."""
        base = _state_aad(session_id)
        return {
            k: self._open(t, base + k.encode(), session_id, k) if t.startswith(MARKER) else t
            for k, t in texts.items()
        }

    def seal_data(self, session_id: str, data: str) -> str:
        """The session's data sealed ("" stays "": there is none)."""
        return self.seal(data, session_id, None) if data else data

    def seal_data_missing(self, session_id: str, data: str) -> str:
        """The data sealed unless it already is."""
        return data if not data or data.startswith(MARKER) else self.seal(data, session_id, None)

    def open_data(self, session_id: str, data: str) -> str:
        """The session's data opened."""
        return self.open(data, session_id, None) if data else data

    # -- records ----------------------------------------------------------------------
    def sealed_record(self, record: SessionRecord) -> SessionRecord:
        """``record`` with its unsealed texts and data sealed (sealed ones as they are)."""
        sid = record.session_id
        texts = self.seal_missing(sid, record.texts)
        data = self.seal_data_missing(sid, record.data)
        if texts is record.texts and data == record.data:
            return record
        return dataclasses.replace(record, texts=texts, data=data)

    def current_record(self, record: SessionRecord) -> SessionRecord:
        """``record`` with every text and its data under the newest key: plaintext
        sealed, what an older key sealed opened and sealed again, the rest as it is.

        What a durable store writes from a snapshot: a pass that read Redis before a
        rekey rewrote it still commits nothing under the old key. StateDecryptError
        when a text is under a key no longer configured.
        """
        prefix = self._prefix
        data = record.data
        if all(t.startswith(prefix) for t in record.texts.values()) and (
            not data or data.startswith(prefix)
        ):
            return record  # the usual case, one prefix test per text
        sid = record.session_id
        renewed = {k: t for k, t in record.texts.items() if not t.startswith(prefix)}
        for key, text in renewed.items():
            renewed[key] = self.seal(self.open(text, sid, key), sid, key)
        if data and not data.startswith(prefix):
            data = self.seal(self.open(data, sid, None), sid, None)
        return dataclasses.replace(record, texts={**record.texts, **renewed}, data=data)

    def resealed_record(self, record: SessionRecord) -> SessionRecord:
        """``record`` (opened: plaintext throughout) with every text and its data sealed."""
        sid = record.session_id
        return dataclasses.replace(
            record, texts=self.seal_texts(sid, record.texts), data=self.seal_data(sid, record.data)
        )

    def opened_record(self, record: SessionRecord) -> SessionRecord:
        """``record`` with its texts and data opened."""
        sid = record.session_id
        return dataclasses.replace(
            record, texts=self.open_texts(sid, record.texts), data=self.open_data(sid, record.data)
        )


def _derive(secret: bytes) -> bytes:
    """The AES-256 key for state, derived from a ring key (domain separation from Fernet)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(secret)
