"""One run's hold on a session: lease, load, resolve the state to use, save deltas.

Agents, teams and workflows all open sessions through :func:`open_session`, so the
precedence rules (run argument > stored > default; overwrite flag) and the persistence
points live in one place. One module per job:

- :mod:`~core.state.session._opening` — lease and load in one store call, the state to
  use (:func:`resolve_state`), and the session handed back to the per-process cache;
- :mod:`~core.state.session._handle` — :class:`SessionHandle`: the live state and data
  of the run, and its saves (deltas only, under the lease);
- :mod:`~core.state.session._batches` — a tool batch's save, deferred by a grace period;
- :mod:`~core.state.session._audit_handoff` — the audit entry each save hands over;
- :mod:`~core.state.session._caching` — what the cache keeps of a finished run.

What a turn costs. The live state tracks the top-level keys code may have changed
(:mod:`core.state.tracked`), so a save encodes and sends only those. The session is
opened with one store call (``BaseDb.open_run``: lease and load together), told what
this process already holds (:mod:`core.state.cache`): when the stored session is still
exactly that, nothing is loaded, decoded or copied (the cached live dict itself is
handed to the run). The run's last save also gives the lease back
(:meth:`SessionHandle.persist_final`). On RedisDb that is 2 round trips a turn.

Persistence points. A tool batch's changes are saved before the run waits on anything
slow: :meth:`SessionHandle.persist_soon` starts the batch's save only if the run has
not reached its next persistence point within ``BATCH_SAVE_GRACE`` seconds (the next
model call usually answers first, and then the batch is saved with the run's final
save, or the next batch's). So a turn costs 2 round trips when the model answers
within the grace period, else 3, the third overlapped with the model call. Nothing is
saved after the run's deadline.
"""

from __future__ import annotations

from core.state.session._batches import BATCH_SAVE_GRACE
from core.state.session._handle import SessionHandle
from core.state.session._opening import open_session, resolve_state

__all__ = ["BATCH_SAVE_GRACE", "SessionHandle", "open_session", "resolve_state"]
