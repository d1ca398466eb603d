"""Audit ops read straight from one top-level key's old and new texts, where no diff is needed.

A save holds, for each key it writes, the text the store had and the text it writes
(:class:`core.state.checkpoints.KeyTexts`). Most changes are one of a few shapes that
the texts alone tell exactly, without decoding both values and comparing them:

- the key is added or removed whole: one ``add`` or ``remove`` op;
- the value is a scalar, or changed type (list to object, number to string, ...): one
  ``replace`` op, which also records a change in type only (``1`` -> ``1.0``) exactly;
- a list only grew at its end: the new text is the old one with ``,`` and the new
  items where the old text had its closing ``]``. JSON is read left to right, so every
  old item is read the same in the new text, and ``[`` plus the rest is a list of just
  the appended items: decoding that (a few bytes) gives ``add`` ops at the end and
  ``remove`` ops back, in any order of keys.

Anything else (a list changed in place, an object changed) returns None and is diffed
(:func:`core.state.audit.diff_texts`). Values in the ops are always decoded from the
texts, never the live objects, so a later change to the live state cannot reach them.
"""

from __future__ import annotations

from typing import Any

from core.db import codec

__all__ = ["text_ops"]

Op = dict[str, Any]

#: the first character of a JSON text -> what kind of value it is
_KINDS = {"{": "object", "[": "array", '"': "string", "t": "bool", "f": "bool", "n": "null"}
_KINDS.update(dict.fromkeys("-0123456789", "number"))

#: marks "no live value given"
NO_VALUE: Any = object()


def text_ops(
    path: str, old: str | None, new: str | None, live: Any = NO_VALUE
) -> tuple[list[Op], list[Op]] | None:
    """(patch, inverse) for the key at JSON pointer ``path`` going from text ``old`` to
    ``new`` (None: absent; the two differ), or None when only a diff can tell them.

    ``live``: the value ``new`` encodes, when the caller holds it; it is only measured
    (its length), never put in an op.
    """
    if new is None and old is None:
        return [], []
    if old is None:
        assert new is not None  # for the type checker: both absent was answered above
        return [{"op": "add", "path": path, "value": codec.decode_value(new)}], [
            {"op": "remove", "path": path}
        ]
    if new is None:
        return [{"op": "remove", "path": path}], [
            {"op": "add", "path": path, "value": codec.decode_value(old)}
        ]
    kind_old, kind_new = _KINDS.get(old[:1]), _KINDS.get(new[:1])
    if kind_old is None or kind_new is None:  # leading whitespace: not a codec text
        return None
    if kind_old != kind_new or kind_old not in ("object", "array"):
        return _replaced(path, old, new)
    if kind_old == "array":
        return _appended(path, old, new, live)
    return None


def _replaced(path: str, old: str, new: str) -> tuple[list[Op], list[Op]]:
    return [{"op": "replace", "path": path, "value": codec.decode_value(new)}], [
        {"op": "replace", "path": path, "value": codec.decode_value(old)}
    ]


def _appended(path: str, old: str, new: str, live: Any) -> tuple[list[Op], list[Op]] | None:
    """The ops of a list that only grew at its end, or None if it changed otherwise."""
    if not (old.endswith("]") and new.endswith("]")):
        return None
    if old == "[]":
        tail = new
    else:
        head = len(old) - 1  # the old text up to its closing bracket
        if len(new) <= head or new[head] != "," or not new.startswith(old[:head]):
            return None
        tail = "[" + new[head + 1 :]
    try:
        added = codec.decode_value(tail)
    except ValueError:  # not a list of the appended items after all: diff it
        return None
    if not isinstance(added, list) or not added:
        return None
    if old == "[]":
        start = 0
    else:  # the old items are counted from the live list, else from the new text
        start = len(live if isinstance(live, list) else codec.decode_value(new)) - len(added)
    if start < 0:
        return None
    end = start + len(added)
    patch = [
        {"op": "add", "path": f"{path}/{start + i}", "value": item} for i, item in enumerate(added)
    ]
    inverse = [{"op": "remove", "path": f"{path}/{i}"} for i in reversed(range(start, end))]
    return patch, inverse
