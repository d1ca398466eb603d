"""The JSON text of each top-level key of a run's state: now, at checkpoints, and as saved.

:class:`KeyTexts` holds one text per key and changes it in place, journalling each
change, so a checkpoint is just a position in the journal (O(1) to take) and rolling
back to it undoes only the keys changed since. Beside the journal it remembers, for
each key changed since the last save, the text the store holds, so the delta to save
is found by looking at those keys only, never by comparing the whole state.

The texts are handed to a run's output without a copy (:meth:`KeyTexts.share`): the
dict is then frozen for as long as the output may read it, and the next change copies
it first, only if that output is still alive and undecoded (copy on write).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from core.db import codec
from core.run.output import DeferredState

T = TypeVar("T")

#: marks a key that is absent (in the journal and the saved texts)
ABSENT: Any = None


class Checkpoint:
    """A position in a run's journal of text changes (see :meth:`KeyTexts.checkpoint`)."""

    __slots__ = ("owner", "position")

    def __init__(self, owner: KeyTexts, position: int) -> None:
        self.owner = owner
        self.position = position

    def __repr__(self) -> str:
        return f"Checkpoint({self.position})"


class KeyTexts:
    """The JSON text per key of a live state, with undo back to any checkpoint."""

    __slots__ = ("_journal", "_saved", "shared", "size", "texts", "written")

    def __init__(
        self,
        texts: dict[str, str],
        saved: Mapping[str, str] | None = None,
        *,
        size: int | None = None,
    ) -> None:
        #: the text of every present key, as of the last checkpoint (owned: changed in place)
        self.texts = texts
        #: characters of key and text, kept up to date (bounds the per-process cache)
        self.size = texts_size(texts) if size is None else size
        #: every key whose text changed at some point (undone or not)
        self.written: set[str] = set()
        self._journal: list[tuple[str, str | None]] = []
        #: who holds ``texts`` as a frozen snapshot (see :meth:`share`); it travels with
        #: the dict through the per-process cache to the session's next run
        self.shared: weakref.ref[Any] | None = None
        #: key -> the text the store holds (ABSENT: not stored), for keys changed since
        #: the last save; keys missing here are stored exactly as in ``texts``
        self._saved: dict[str, str | None] = {}
        if saved is not None:
            # the live texts' order first: a new session's keys reach the store in it
            for key in [*texts, *(k for k in saved if k not in texts)]:
                if saved.get(key) != texts.get(key):
                    self._saved[key] = saved.get(key)

    def assign(self, key: str, text: str | None) -> None:
        """Make ``text`` the key's text (None: the key is absent), journalled."""
        old = self.texts.get(key)
        if old == text:
            return
        self._journal.append((key, old))
        if key not in self._saved:
            self._saved[key] = old
        self._replace(key, old, text)

    def share(self, holder: Callable[[dict[str, str]], T]) -> T:
        """``holder(texts)`` over the texts as they are now, without copying them.

        The holder must keep the dict unchanged and support weak references; while it
        lives, the first change here gives this object its own copy (the shared dict
        stays frozen). Asked again before any change, the same live holder is returned.
        """
        held = self.shared() if self.shared is not None else None
        if held is None:
            held = holder(self.texts)
            self.shared = weakref.ref(held)
        return held

    def _replace(self, key: str, old: str | None, text: str | None) -> None:
        if self.shared is not None:
            if self.shared() is not None:  # a snapshot still reads this dict: leave it frozen
                self.texts = dict(self.texts)
            self.shared = None
        self.written.add(key)
        if old is not None:
            self.size -= len(key) + len(old)
        if text is None:
            self.texts.pop(key, None)
        else:
            self.texts[key] = text
            self.size += len(key) + len(text)

    def checkpoint(self) -> Checkpoint:
        """The current position: :meth:`undo_to` it to get these texts back."""
        return Checkpoint(self, len(self._journal))

    def undo_to(self, checkpoint: Checkpoint) -> set[str]:
        """Put every text back as at ``checkpoint``; the keys whose text changed."""
        if checkpoint.owner is not self or checkpoint.position > len(self._journal):
            raise ValueError("a checkpoint can only roll back its own run's state, backwards")
        undone: set[str] = set()
        while len(self._journal) > checkpoint.position:
            key, old = self._journal.pop()
            undone.add(key)
            current = self.texts.get(key)
            if key not in self._saved:  # the key was saved since: the store holds its text
                self._saved[key] = current
            self._replace(key, current, old)
        return undone

    def unsaved(self) -> tuple[dict[str, str], set[str]]:
        """(changed texts, removed keys) between what the store holds and ``texts``."""
        changed: dict[str, str] = {}
        removed: set[str] = set()
        for key, stored in self._saved.items():
            text = self.texts.get(key)
            if text == stored:
                continue
            if text is None:
                removed.add(key)
            else:
                changed[key] = text
        return changed, removed

    def mark_saved(self, changed: Mapping[str, str], removed: Iterable[str]) -> None:
        """The store now holds ``changed`` and lacks ``removed`` (a save succeeded)."""
        for key, text in changed.items():
            self._saved[key] = text
        for key in removed:
            self._saved[key] = ABSENT
        for key in [k for k, stored in self._saved.items() if self.texts.get(k) == stored]:
            del self._saved[key]

    def saved_texts(self) -> dict[str, str] | None:
        """The texts the store holds, when they are exactly ``texts`` (else None)."""
        return None if self._saved else self.texts

    def saved_text(self, key: str) -> str | None:
        """The text the store holds for one key (None: absent)."""
        if key in self._saved:
            return self._saved[key]
        return self.texts.get(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.texts)


def texts_size(texts: Mapping[str, str]) -> int:
    """Characters of every key and text (what :attr:`KeyTexts.size` counts)."""
    return sum(len(k) + len(t) for k, t in texts.items())


class StateTexts(DeferredState):
    """A run's final state as JSON text per key, for its output (decoded on first read).

    ``texts`` may be the runtime's own dict, shared without a copy
    (:meth:`KeyTexts.share`): it is never changed while this object lives, and never
    changed here.
    """

    __slots__ = ("texts",)

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.texts = texts

    def decode(self) -> dict[str, Any]:
        """A fresh dict of the state."""
        return codec.decode_state(self.texts)
