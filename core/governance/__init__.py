"""Every operation on stored sessions that is not a run, one module per concern.

* :mod:`~core.governance.save`: the one admin save path (lease, fence, audit entry);
* :mod:`~core.governance.sessions`: list, dump, history, restore, reset, delete;
* :mod:`~core.governance.restore`: the one restore path and its preview (counters
  only grow; the schema version across a migration);
* :mod:`~core.governance.audit` and :mod:`~core.governance.undo`: the audit trail,
  diffs, and undoing a user's last change;
* :mod:`~core.governance.transfer` and :mod:`~core.governance.user_export`: export and
  import of sessions, and everything stored about one user;
* :mod:`~core.governance.search`: the console's session search;
* :mod:`~core.governance.erasure` (with :mod:`~core.governance.pseudonym`),
  :mod:`~core.governance.retention`, :mod:`~core.governance.rekey`: per-user erasure,
  per-scope retention and re-sealing under a new key, over every store;
* :mod:`~core.governance.budgets`: usage budgets, the meter the runtime feeds;
* :mod:`~core.governance.migrate`: bulk migration of stored sessions to a new schema.

Stores offer the public maintenance primitives these need (``core.db``); nothing here
reaches into a store's private members (ruff SLF001 is enforced on this package).
Submodules are imported by their own path; this face imports none of them, so the
runtime can use one concern without loading the others.
"""

from __future__ import annotations

__all__ = [
    "audit",
    "budgets",
    "erasure",
    "migrate",
    "pseudonym",
    "rekey",
    "restore",
    "retention",
    "save",
    "search",
    "sessions",
    "transfer",
    "undo",
    "user_export",
]
