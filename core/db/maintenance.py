"""What the maintenance primitives of every store take and give back.

Governance (``core/governance``: erasure, retention, rekey) decides *what* to do; each
store offers public primitives that do it on what only the store can reach (its tables,
its Redis keys, its private history), as Django's session backends offer
``clear_expired()``. The defaults on :class:`~core.db.base.BaseDb` work through the
session API; backends override them.

* :class:`UserRewrite`: how to take one user out of stored sessions. The rule (which
  occurrences of the id are rewritten, what a session's data holds) is governance's
  (``core/governance/pseudonym.py``); a store applies it to the texts it keeps, opening
  and sealing them with its own cipher.
* :class:`RekeyCounts`: what one store's pass of re-sealing under the newest key did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.db.cipher import StateCipher
from core.db.records import HistoryEntry, SessionRecord

__all__ = ["RekeyCounts", "UserRewrite", "no_keys_error"]


@dataclass(frozen=True, slots=True)
class UserRewrite:
    """How to take ``user_id`` out of stored sessions, replacing it by ``pseudonym``.

    The callables work on plain (opened) texts; :meth:`sealed_texts` and
    :meth:`sealed_data` open and seal around them for a store that encrypts.
    """

    user_id: str
    pseudonym: str
    #: the forms the id takes inside stored JSON text (what a text search looks for)
    needles: tuple[str, ...]
    #: key texts -> (changed key texts, removed keys): the state delta without the user
    texts: Callable[[Mapping[str, str]], tuple[dict[str, str], set[str]]]
    #: a session's data text -> the same without the user
    data: Callable[[str], str]
    #: a JSON value -> (the value with the id replaced, whether it was)
    value: Callable[[Any], tuple[Any, bool]]
    #: does this session (the record and its stored versions) name the user?
    names: Callable[[SessionRecord, list[HistoryEntry]], bool]

    def mentions(self, text: str) -> bool:
        """True when stored text *may* name the user (a cheap substring prefilter)."""
        return any(n in text for n in self.needles)

    def user(self, user_id: str | None) -> str | None:
        """A stored "last user" after the rewrite."""
        return self.pseudonym if user_id == self.user_id else user_id

    def sealed_texts(
        self, texts: Mapping[str, str], session_id: str, cipher: StateCipher | None
    ) -> dict[str, str] | None:
        """Stored key texts (sealed when ``cipher`` is given) without the user, changed
        keys sealed again; None when nothing changed."""
        opened = cipher.open_texts(session_id, texts) if cipher is not None else dict(texts)
        changed, removed = self.texts(opened)
        if not changed and not removed:
            return None
        if cipher is not None:
            changed = cipher.seal_texts(session_id, changed)
        return {k: t for k, t in texts.items() if k not in removed and k not in changed} | changed

    def sealed_data(self, text: str, session_id: str, cipher: StateCipher | None) -> str:
        """Stored data text (sealed when ``cipher`` is given) without the user."""
        if cipher is None or not text:
            return self.data(text)
        opened = cipher.open_data(session_id, text)
        scrubbed = self.data(opened)
        return text if scrubbed == opened else cipher.seal_data(session_id, scrubbed)


@dataclass(slots=True)
class RekeyCounts:
    """What one store's pass did."""

    store: str
    #: sessions looked at
    sessions: int = 0
    #: sessions whose current state or data was sealed again
    rewritten: int = 0
    #: state values, data texts and history versions sealed again
    values: int = 0
    data: int = 0
    history: int = 0
    #: sessions that changed while they were rewritten (left for the next run)
    moved: int = 0
    #: "session: reason" of sessions that could not be opened (a key not configured)
    failed: list[str] = field(default_factory=list)


def no_keys_error(store: object) -> ValueError:
    """The refusal to rekey a store that encrypts nothing."""
    return ValueError(
        f"{type(store).__name__} has no state keys (STATEBOT_STATE_KEYS is empty): "
        "nothing is encrypted, so there is nothing to rekey"
    )
