"""One run's hold on a session's state, one module per job.

``session`` (the handle: opening with precedence, deltas, saves), ``tracked`` and
``tracker`` (the live dict and what changed), ``view`` (``AgentState``, seed 002's
``agent_state``), ``schema`` and ``schema_session`` (typed state), ``audit`` and
``audit_text`` (each save's audit entry), ``cache``, ``checkpoints``, ``merge`` and
``template``. Each is imported by its own path; this face loads none of them.
"""

from __future__ import annotations

__all__ = [
    "audit",
    "audit_text",
    "cache",
    "checkpoints",
    "merge",
    "schema",
    "schema_session",
    "session",
    "template",
    "tracked",
    "tracker",
    "view",
]
