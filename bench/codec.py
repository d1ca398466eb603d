"""State codec: the candidate JSON encoders on the work a turn and a store do.

Compares the standard library's C encoder (what ``core/db/codec.py`` uses) with
orjson and msgspec (measured when installed; they are not dependencies) on:

* one small changed value (what a turn encodes when one key changed);
* a whole 10,000-key state, encoded key by key and decoded key by key;
* assembling the SQL ``state`` column from key texts (``object_text``) against
  ``json.dumps`` of the decoded dict, and splitting it back (``split_object``)
  against ``json.loads`` plus re-encoding each key.

orjson and msgspec write NaN/Infinity as ``null`` and accept values the standard
library refuses (datetime, dataclasses, UUID), so to be usable either would need a
NaN check of every float and passthrough options; the numbers below are for the bare
encoders, i.e. the best either could do.

Run: ``.venv/bin/python -m bench.codec [--quick]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import timeit
from collections.abc import Callable
from typing import Any

from core.db import codec

_STDLIB = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _encoders() -> dict[str, Callable[[Any], str]]:
    found: dict[str, Callable[[Any], str]] = {"stdlib json": _STDLIB}
    try:
        orjson: Any = importlib.import_module("orjson")
        found["orjson"] = lambda v: orjson.dumps(v).decode()
    except ImportError:
        print("orjson not installed: skipped")
    try:
        msgspec_json: Any = importlib.import_module("msgspec.json")
        encoder = msgspec_json.Encoder()
        found["msgspec"] = lambda v: encoder.encode(v).decode()
    except ImportError:
        print("msgspec not installed: skipped")
    return found


def _decoders() -> dict[str, Callable[[str], Any]]:
    found: dict[str, Callable[[str], Any]] = {"stdlib json": json.loads}
    try:
        orjson: Any = importlib.import_module("orjson")
        found["orjson"] = orjson.loads
    except ImportError:
        pass
    try:
        msgspec_json: Any = importlib.import_module("msgspec.json")
        found["msgspec"] = msgspec_json.Decoder().decode
    except ImportError:
        pass
    return found


def _best(fn: Callable[[], object], number: int) -> float:
    """Best of 5 runs, seconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def _task(n: int) -> dict[str, Any]:
    return {"id": n, "title": f"Review Q2 roadmap {n}", "status": "todo", "tags": ["work", "q2"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    quick = parser.parse_args().quick
    keys = 1_000 if quick else 10_000
    state = {f"k{i}": _task(i) for i in range(keys)}
    small = _task(1)
    rows: list[tuple[str, str, float]] = []
    for name, encode in _encoders().items():
        rows.append(("encode one small value", name, _best(lambda e=encode: e(small), 20_000)))
        rows.append(
            (
                f"encode {keys:,} keys one by one",
                name,
                _best(lambda e=encode: {k: e(v) for k, v in state.items()}, 5),
            )
        )
    texts = codec.encode_state(state)
    for name, decode in _decoders().items():
        rows.append(
            (
                f"decode {keys:,} key texts",
                name,
                _best(lambda d=decode: {k: d(t) for k, t in texts.items()}, 5),
            )
        )
    whole = codec.object_text(texts)
    assert json.loads(whole) == state and codec.split_object(whole) == texts
    rows.append(
        (
            f"state column from {keys:,} texts",
            "codec.object_text",
            _best(lambda: codec.object_text(texts), 5),
        )
    )
    rows.append(
        (
            f"state column from {keys:,} texts",
            "json.dumps(decoded)",
            _best(lambda: json.dumps(state, ensure_ascii=False, separators=(",", ":")), 5),
        )
    )
    rows.append(
        (
            f"state column to {keys:,} texts",
            "codec.split_object",
            _best(lambda: codec.split_object(whole), 5),
        )
    )
    rows.append(
        (
            f"state column to {keys:,} texts",
            "json.loads + encode each",
            _best(lambda: {k: _STDLIB(v) for k, v in json.loads(whole).items()}, 5),
        )
    )
    width = max(len(r[0]) for r in rows)
    print(f"{'work':<{width}}  {'how':<26} {'per call':>12}")
    for work, how, seconds in rows:
        print(f"{work:<{width}}  {how:<26} {seconds * 1e6:>9.1f} µs")


if __name__ == "__main__":
    main()
