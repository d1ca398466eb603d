"""The key ring and the value format: one rule for every encrypted secret."""

from __future__ import annotations

import hashlib
import json

import pytest
from cryptography.fernet import Fernet

from bots.adapters.slack.token_cipher import TokenCipher
from core.crypto import KeyRing, key_id
from core.db.cipher import MARKER, StateCipher, sealed_key_id
from core.exceptions import EncryptionKeyError, StateDecryptError

K1 = Fernet.generate_key().decode()
K2 = Fernet.generate_key().decode()


def test_key_ids_are_short_hashes_and_the_ring_never_shows_a_key() -> None:
    """A key's id is the first 12 hex digits of its SHA-256 (as Slack rows already store)."""
    ring = KeyRing([f" {K2} ", K1, K2])
    assert ring.ids[:2] == (key_id(K2), key_id(K1))
    assert key_id(K1) == hashlib.sha256(K1.encode()).hexdigest()[:12]
    assert ring.primary_id == key_id(K2) and len(ring) == 2  # a repeated key is one key
    assert K1 not in repr(ring) and K2 not in repr(ring) and K1 not in repr(StateCipher(ring))
    assert TokenCipher([K2, K1]).primary_id == ring.primary_id  # the Slack cipher's ring


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ([], "no encryption key given"),
        (["", " "], "no encryption key given"),
        ([K1, "short"], "key #2 is not a Fernet key"),
        (["é" * 44], "key #1 is not a Fernet key"),
    ],
)
def test_bad_rings_are_refused_with_what_to_do(keys: list[str], message: str) -> None:
    """No key or a malformed one: EncryptionKeyError saying which, and how to make one."""
    with pytest.raises(EncryptionKeyError, match=message) as caught:
        KeyRing(keys)
    assert "Fernet.generate_key()" in str(caught.value)


def test_a_sealed_value_is_a_json_string_naming_its_key() -> None:
    """Sealed texts stay JSON (stores splice them into objects) and carry the key id."""
    cipher = StateCipher([K1])
    sealed = cipher.seal('{"a":[1,2]}', "s", "k")
    assert sealed.startswith(MARKER) and isinstance(json.loads(sealed), str)
    assert sealed_key_id(sealed) == key_id(K1) and sealed_key_id('"plain"') is None
    assert cipher.open(sealed, "s", "k") == '{"a":[1,2]}'
    assert cipher.open('{"a":1}', "s", "k") == '{"a":1}'  # plaintext from before passes
    assert cipher.seal('"x"', "s", "k") != cipher.seal('"x"', "s", "k")  # fresh nonce


def test_sealing_what_is_sealed_already_leaves_it_alone() -> None:
    """Snapshots and imports seal only what is not sealed (Redis texts arrive sealed)."""
    cipher = StateCipher([K1])
    sealed = cipher.seal_texts("s", {"a": "1"})
    mixed = cipher.seal_missing("s", {**sealed, "b": "2"})
    assert mixed["a"] == sealed["a"] and mixed["b"].startswith(MARKER)
    assert cipher.seal_missing("s", sealed) is sealed
    assert cipher.open_texts("s", mixed) == {"a": "1", "b": "2"}


def test_an_altered_value_or_data_does_not_open() -> None:
    """A flipped character, or data opened as a state key, is a StateDecryptError."""
    cipher = StateCipher([K1])
    sealed = cipher.seal("1", "s", "k")
    flipped = sealed[:-4] + ("A" if sealed[-4] != "A" else "B") + sealed[-3:]
    with pytest.raises(StateDecryptError, match="altered or moved"):
        cipher.open(flipped, "s", "k")
    data = cipher.seal_data("s", '{"runs":[]}')
    with pytest.raises(StateDecryptError):
        cipher.open(data, "s", "k")
    assert cipher.open_data("s", data) == '{"runs":[]}'


def test_renewed_reseals_only_what_is_not_under_the_newest_key() -> None:
    """Rotation helper: old-key and plaintext texts come back sealed anew, current ones None."""
    old = StateCipher([K1]).seal("1", "s", "k")
    both = StateCipher([K2, K1])
    current = both.seal("1", "s", "k")
    assert both.renewed(current, "s", "k") is None
    for text in (old, "1"):
        renewed = both.renewed(text, "s", "k")
        assert renewed is not None and sealed_key_id(renewed) == key_id(K2)
        assert both.open(renewed, "s", "k") == "1"
