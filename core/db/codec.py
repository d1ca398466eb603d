"""The one place session state becomes JSON text and back, and is measured.

State crosses the storage seam as compact JSON text per top-level key: the runtime
encodes what changed, stores splice those texts (a Redis hash field each, the SQL
``state`` column as one object assembled by :func:`object_text`) and hand them back
untouched, so nothing is decoded or re-encoded on the way. The rules:

* values must be JSON: NaN and Infinity are refused (they are not JSON, and an encoder
  that writes them as ``null`` would change the data silently), as are top-level keys
  that are not strings, values nested more than ``MAX_DEPTH`` levels and text with a
  lone surrogate (``core/db/text_checks.py``); the error names the key;
* compact separators, non-ASCII kept as UTF-8;
* sizes are UTF-8 bytes of the compact JSON text of the whole state, the same number
  whatever backend holds it (:func:`state_bytes` counts it from the key texts).

The encoder is the standard library's C encoder, chosen by measurement over orjson and
msgspec (bench/codec.py, bench/README.md "State codec").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from core.db.text_checks import MAX_DEPTH, text_problem
from core.db.values import TRANSIENT_KEYS
from core.exceptions import StateValueError

__all__ = [
    "StateValueError",
    "decode_state",
    "decode_value",
    "encode_state",
    "encode_value",
    "entry_bytes",
    "key_text",
    "object_text",
    "split_object",
    "state_bytes",
]

# One encoder for every value: json.dumps with options builds a new encoder per call,
# which dominates the cost of a state with thousands of small top-level values.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_encode = _ENCODER.encode
_DECODER = json.JSONDecoder()
_decode = _DECODER.decode
#: (value, end index) of the JSON value at an index: the C scanner json.loads uses
_scan_value: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_SPACE = re.compile(r"[ \t\n\r]*")


def encode_value(key: str, value: Any) -> str:
    """The JSON text of one top-level value; StateValueError naming the key otherwise."""
    if not isinstance(key, str):
        raise StateValueError(str(key), "top-level keys must be strings")
    try:
        text = _encode(value)
    except (TypeError, ValueError) as exc:
        raise StateValueError(key, str(exc)) from None
    except RecursionError:  # nested deeper than the C encoder goes
        raise StateValueError(key, f"it is nested more than {MAX_DEPTH} levels deep") from None
    problem = text_problem(text)
    if problem is not None:
        raise StateValueError(key, problem)
    return text


def encode_state(state: Mapping[str, Any]) -> dict[str, str]:
    """JSON text per top-level key (transient keys left out)."""
    return {k: encode_value(k, v) for k, v in state.items() if k not in TRANSIENT_KEYS}


def encode_delta(changed: Mapping[str, Any]) -> dict[str, str]:
    """JSON text per key of ``changed``, every key kept (imports, tests)."""
    return {k: encode_value(k, v) for k, v in changed.items()}


def decode_value(text: str) -> Any:
    """The value of one key's JSON text (a fresh object each call)."""
    return _decode(text)


def decode_state(texts: Mapping[str, str]) -> dict[str, Any]:
    """A fresh state dict from JSON text per key."""
    return {key: _decode(text) for key, text in texts.items()}


def key_text(key: str) -> str:
    """A key as a JSON string; keys needing no escape (the common case) are just quoted."""
    if key.isascii() and key.isprintable() and '"' not in key and "\\" not in key:
        return f'"{key}"'
    return _encode(key)


def object_text(texts: Mapping[str, str]) -> str:
    """The compact JSON object of a whole state, assembled from its key texts as is."""
    return "{" + ",".join(f"{key_text(k)}:{t}" for k, t in texts.items()) + "}"


def split_object(text: str) -> dict[str, str]:
    """JSON text per top-level key of a JSON object text: the inverse of :func:`object_text`.

    Each value's text is sliced from ``text`` byte for byte (the C scanner finds where
    it ends), so a state assembled by :func:`object_text` splits back into exactly the
    texts it was made of. ValueError when ``text`` is not a JSON object.
    """
    texts: dict[str, str] = {}
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if text[at : at + 1] != "{":
        raise ValueError(f"a session state must be a JSON object, found {text[:40]!r}")
    at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
    if text[at : at + 1] == "}":
        return texts
    while True:
        if text[at : at + 1] != '"':
            raise ValueError(f"expected a key at character {at} of a session state")
        key, at = _scan_string(text, at + 1)
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if text[at : at + 1] != ":":
            raise ValueError(f"expected ':' at character {at} of a session state")
        start = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        try:
            _, end = _scan_value(text, start)
        except StopIteration:
            raise ValueError(f"expected a value at character {start} of a session state") from None
        texts[key] = text[start:end]
        at = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        sep = text[at : at + 1]
        if sep == "}":
            if text[at + 1 :].strip(" \t\n\r"):
                raise ValueError("extra data after a session state's JSON object")
            return texts
        if sep != ",":
            raise ValueError(f"expected ',' or '}}' at character {at} of a session state")
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]


def utf8_len(text: str) -> int:
    """UTF-8 bytes of a text; ASCII (the common case) is as long in bytes as in characters."""
    return len(text) if text.isascii() else len(text.encode())


def entry_bytes(key: str, text: str) -> int:
    """Bytes one ``"key":value`` member adds to the compact JSON of a state."""
    return utf8_len(key_text(key)) + 1 + utf8_len(text)


def state_bytes(texts: Mapping[str, str]) -> int:
    """UTF-8 size of the state's compact JSON (``object_text(texts)``)."""
    if not texts:
        return 2
    return 2 + len(texts) - 1 + sum(entry_bytes(k, t) for k, t in texts.items())


def largest_keys(texts: Mapping[str, str], n: int = 3) -> Iterable[tuple[str, int]]:
    """The ``n`` keys whose texts are largest, with their UTF-8 sizes (for error messages)."""
    sizes = sorted(((k, utf8_len(t)) for k, t in texts.items()), key=lambda kv: -kv[1])
    return sizes[:n]
