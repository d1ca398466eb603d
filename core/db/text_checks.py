"""What every store can hold besides "is it JSON": nesting depth and valid Unicode.

A value nested hundreds of levels deep is JSON, yet every recursive walk after it (the
audit diff, merges, erasure's rewrite) hits Python's recursion limit, at the run's
final save. A string with a lone surrogate (``"\\ud800"`` in JSON) is a Python str,
yet no store can encode it as UTF-8. Both are refused where a value enters a run (a
tool's change to the state, the model's tool-call arguments), so the call that brought
it fails and nothing after it does. The checks read the JSON text the codec produced,
with C-speed string operations only.
"""

from __future__ import annotations

import re

__all__ = ["MAX_DEPTH", "sanitised", "text_problem"]

#: levels of nested lists and objects a value may have (far beyond real state, far
#: below the ~1,000 Python frames a recursive walk may use)
MAX_DEPTH = 100

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
#: every byte but the four brackets
_NOT_BRACKET_BYTES = bytes(b for b in range(256) if b not in b"[]{}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _nests_within(brackets: str, limit: int) -> bool:
    for _ in range(limit):  # each round removes the innermost level everywhere
        # a removed pair leaves a mark until the round ends, so the pair it enclosed
        # waits for the next round (removing "[]" and then "{}" in one round took two
        # levels at a time from lists and objects nested in turn)
        brackets = brackets.replace("[]", "\0").replace("{}", "\0").replace("\0", "")
        if not brackets:
            return True
    return False


def _deeper_than(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` nests more than ``limit`` levels (strings ignored)."""
    # bytes.translate keeps the brackets: far faster than a regex on a big value (a list
    # of 10,000 objects), and exact, as UTF-8 never uses an ASCII byte inside a
    # multi-byte character
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKET_BYTES)
    if len(brackets) <= limit:
        return False  # the common case: too few brackets to nest that deep
    if _nests_within(brackets.decode("ascii"), limit):
        return False  # brackets inside strings can only add levels, never hide one
    return not _nests_within(_NOT_BRACKET.sub("", _STRING.sub("", text)), limit)


def text_problem(text: str) -> str | None:
    """Why JSON ``text`` cannot be stored, as a sentence fragment; None when it can."""
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            return "it holds text that is not valid Unicode (a lone surrogate)"
    if _deeper_than(text, MAX_DEPTH):
        return f"it is nested more than {MAX_DEPTH} levels deep"
    return None


def sanitised(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (for text shown, not kept)."""
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text
