"""Whether a sync tool nobody declared runs on the event loop: decided by measuring it.

A sync tool normally runs on a worker thread (:mod:`core.tools.workers`), so a call
that blocks never stalls the other sessions and a call past its timeout can be
abandoned. For a trivial tool (a few dict edits) the hop there and back costs more
than the tool, and isolates nothing: pure Python holds the GIL, so the loop waits
for it either way. So a tool declared neither ``inline=True`` nor ``inline=False`` is
timed on its worker thread, and once :data:`PROMOTE_AFTER` calls have each returned
within :data:`FAST_WALL` seconds, busy on the CPU for at least :data:`BUSY_SHARE` of
that time (it did not wait: no I/O, no lock, no hand-off to the loop it would block)
and without failing, it runs on the loop like a declared one. Decoding the private
copy of the state a worker call reads is not counted: on the loop the call reads the
live state. A call that fails (raises anything but a refusal or a run signal) resets
the count; a slow or waiting call is not counted.

A promoted tool whose call on the loop fails or takes longer than
:data:`DEMOTE_WALL` is sent back to its worker thread for good, and a warning names
it: the measured evidence no longer holds, and one stall is all it may cost.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from core.db.values import StateValueError
from core.exceptions import AgentRunException, ToolRefusedError
from core.state.tracked import decoding_seconds
from core.utils.log import logger

#: calls measured on the worker before a tool may run on the loop
PROMOTE_AFTER = 20
#: a measured call counts only if it returned within this many seconds ...
FAST_WALL = 0.001
#: ... and its thread was on the CPU for this share of that time (it never waited)
BUSY_SHARE = 0.75
#: a promoted call that holds the loop longer than this goes back to a worker for good
#: (the interpreter's default switch interval: no longer than a busy thread may hold
#: the GIL, so no longer than the worker would have held up the loop anyway)
DEMOTE_WALL = 0.005


def failed(exc: BaseException) -> bool:
    """Whether a call that raised ``exc`` failed (a refusal or a run signal is an answer)."""
    return not isinstance(exc, AgentRunException | ToolRefusedError | StateValueError)


class InlineRecord:
    """What one tool's calls have shown; shared by its bound and renamed copies."""

    __slots__ = ("_fast_calls", "_lock", "demoted")

    def __init__(self) -> None:
        self._lock = threading.Lock()  # worker threads report concurrently
        self._fast_calls = 0
        #: sent back to its worker after a call on the loop failed or ran long
        self.demoted = False

    def __deepcopy__(self, memo: dict[int, object]) -> InlineRecord:
        # a copied agent's tool is the same code: it shares what the calls have shown
        return self

    @property
    def promoted(self) -> bool:
        """Whether the next call may run on the loop."""
        return not self.demoted and self._fast_calls >= PROMOTE_AFTER

    def timed(self, call: Callable[..., Any]) -> Callable[..., Any]:
        """``call`` measured where it runs (a worker thread): its outcome is recorded."""

        def measured(**args: Any) -> Any:
            wall, cpu = time.perf_counter(), time.thread_time()
            copy_wall, copy_cpu = decoding_seconds()
            try:
                result = call(**args)
            except BaseException as exc:
                if failed(exc):
                    with self._lock:
                        self._fast_calls = 0
                raise
            # decoding the private copy is the worker's cost, not the tool's: on the loop
            # the call reads the live state, already decoded
            decoded_wall, decoded_cpu = decoding_seconds()
            wall = time.perf_counter() - wall - (decoded_wall - copy_wall)
            cpu = time.thread_time() - cpu - (decoded_cpu - copy_cpu)
            if wall <= FAST_WALL and cpu >= BUSY_SHARE * wall:
                with self._lock:
                    self._fast_calls += 1
            return result

        return measured

    def ran_on_loop(self, name: str, seconds: float, *, failed: bool) -> None:
        """A promoted call returned on the loop after ``seconds``; demote it if need be."""
        if self.demoted or not (failed or seconds > DEMOTE_WALL):
            return
        self.demoted = True
        logger.warning(
            "tool_sent_back_to_worker",
            tool=name,
            seconds=round(seconds, 6),
            failed=failed,
            why="a measured-cheap tool failed or held the event loop; it runs on a worker "
            "thread from now on (declare @tool(inline=False) to keep it there from the start)",
        )
