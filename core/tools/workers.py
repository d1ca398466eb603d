"""Worker threads for sync tools and sync hook chains, so they never block the event loop.

A blocking sync tool (``time.sleep``, a slow HTTP client) would freeze every session
of the process if it ran on the loop. Here it runs on a daemon worker thread. Python
cannot stop a thread, so a call that outlives its timeout is *abandoned*: it goes on
running until it returns on its own, and its result is thrown away. Daemon threads
mean an abandoned call never blocks the process from exiting (``asyncio.to_thread``
uses the default executor, whose threads are joined at exit). A call still queued
when its caller gives up is never started.

At most ``max_workers`` threads run at once; they are started on demand and exit after
``idle_exit`` seconds without work, so an idle process keeps none.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_Job = tuple[Future[Any], Callable[[], Any]]


class WorkerPool:
    """Daemon threads, started on demand, bounded in number."""

    __slots__ = ("_idle", "_jobs", "_lock", "_queued", "_threads", "idle_exit", "max_workers")

    def __init__(self, max_workers: int = 64, *, idle_exit: float = 30.0) -> None:
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, not {max_workers}")
        self.max_workers = max_workers
        self.idle_exit = idle_exit
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0  # workers waiting for a job
        self._queued = 0  # jobs no worker has taken yet

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Queue ``fn``; a worker runs it unless the future is cancelled first."""
        future: Future[T] = Future()
        with self._lock:
            self._jobs.put((future, fn))
            self._queued += 1
            # every queued job needs its own worker: one blocking call never delays another
            if self._queued > self._idle and self._threads < self.max_workers:
                self._threads += 1
                threading.Thread(target=self._work, name="statebot-tool", daemon=True).start()
        return future

    @property
    def threads(self) -> int:
        """Worker threads alive now (busy, abandoned or idle)."""
        return self._threads

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            try:
                future, fn = self._jobs.get(timeout=self.idle_exit)
            except queue.Empty:
                with self._lock:
                    self._idle -= 1
                    if self._jobs.qsize():  # a job arrived as we timed out: stay for it
                        continue
                    self._threads -= 1
                return
            with self._lock:
                self._idle -= 1
                self._queued -= 1
            if not future.set_running_or_notify_cancel():
                continue  # the caller gave up before it started
            # an idle thread must not keep the last job (and the state it was given) alive:
            # the session cache reuses a run's live dict only when nothing else holds it
            try:
                result = fn()
            except BaseException as exc:  # handed to the caller, like any executor
                del fn
                future.set_exception(exc)
            else:
                del fn
                future.set_result(result)
                del result
            del future


_pool = WorkerPool()


async def run_in_worker(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run sync ``fn`` on a worker thread (with the caller's contextvars); await its result.

    Cancelling the await abandons the call: a queued call never starts, a running one
    finishes in the background and its result is dropped.
    """
    context = contextvars.copy_context()
    call = functools.partial(context.run, fn, *args, **kwargs)
    return await asyncio.wrap_future(_pool.submit(call))
