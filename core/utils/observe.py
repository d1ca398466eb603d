"""The one observation seam of the runtime: timed events told to registered observers.

``core`` never imports ``bots``, yet the bots export metrics and traces of what happens
inside a run. So the runtime announces its natural points here — a run, a model call, a
tool call, a store round trip, the wait for a session's lease — and whoever cares
registers an :class:`Observer` (``bots.ops.metrics``, ``bots.ops.tracing``).

Events, with the attributes each carries:

- ``run`` (``owner_id``, ``kind``): one run of an agent, team or workflow, from opening
  its session to its last save.
- ``model_call`` (``owner_id``): one model round trip.
- ``tool_call`` (``tool``): one tool call; ``error`` when it ended in an error result.
- ``store_call`` (``op``: ``load`` or ``save``): one round trip to the session store.
- ``lease_wait`` (``store``): the time spent acquiring a session's run lock, reported
  once it is held (:func:`record`), so no observer can delay the lock itself.

With no observer registered, :func:`observe` returns one shared inert object: the cost
is a function call and an empty-tuple test, nothing measurable beside a model call.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType

import structlog

__all__ = ["Attrs", "Observer", "add_observer", "observe", "record", "remove_observer"]

logger = structlog.get_logger(__name__)

Attrs = Mapping[str, str]


class Observer:
    """Told when an event begins and ends; every method is a no-op unless overridden.

    ``begin`` returns a token handed back to ``end`` (a tracer returns its span); an
    event reported after the fact (:func:`record`) gets no ``begin`` and token None.
    Methods are called on the thread and task of the event, so they must be quick;
    an exception in one is logged and never reaches the run.
    """

    __slots__ = ()

    def begin(self, event: str, attrs: Attrs) -> object:
        """An event starts; the return value comes back to :meth:`end`."""
        return None

    def end(self, event: str, attrs: Attrs, token: object, seconds: float, error: bool) -> None:
        """An event ended after ``seconds``; ``error`` when it failed."""


_lock = threading.Lock()
#: replaced, never mutated, so readers iterate without the lock
_observers: tuple[Observer, ...] = ()


def add_observer(observer: Observer) -> None:
    """Register ``observer`` (once; adding it again changes nothing)."""
    global _observers
    with _lock:
        if observer not in _observers:
            _observers = (*_observers, observer)


def remove_observer(observer: Observer) -> None:
    """Unregister ``observer`` (no error if it was not registered)."""
    global _observers
    with _lock:
        _observers = tuple(o for o in _observers if o is not observer)


class _Observed:
    """One event in progress: tells the observers at enter and exit."""

    __slots__ = ("attrs", "error", "event", "observers", "started", "tokens")

    def __init__(self, event: str, attrs: Attrs, observers: tuple[Observer, ...]) -> None:
        self.event = event
        self.attrs = attrs
        self.observers = observers
        self.error = False
        self.tokens: list[object] = []
        self.started = 0.0

    def __enter__(self) -> _Observed:
        self.started = time.perf_counter()
        for observer in self.observers:
            self.tokens.append(_safely(observer.begin, self.event, self.attrs))
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        seconds = time.perf_counter() - self.started
        error = self.error or exc is not None
        # ended in reverse, so a tracer's nested contexts unwind in order
        for observer, token in zip(reversed(self.observers), reversed(self.tokens), strict=True):
            _safely(observer.end, self.event, self.attrs, token, seconds, error)


class _Unobserved:
    """The shared stand-in when nobody observes: does nothing, allocates nothing."""

    __slots__ = ()

    @property
    def error(self) -> bool:
        return False

    @error.setter
    def error(self, value: bool) -> None:
        pass

    def __enter__(self) -> _Unobserved:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


_UNOBSERVED = _Unobserved()


def observe(event: str, **attrs: str) -> _Observed | _Unobserved:
    """A context manager timing ``event``; set ``.error = True`` on it for a failed outcome.

    An exception leaving the block also counts as an error (and goes on).
    """
    observers = _observers
    if not observers:
        return _UNOBSERVED
    return _Observed(event, attrs, observers)


def record(event: str, seconds: float, **attrs: str) -> None:
    """Report an event that already took ``seconds`` (it began ``seconds`` ago)."""
    for observer in _observers:  # no begin: ``end`` gets token None
        _safely(observer.end, event, attrs, None, seconds, False)


def _safely(method: Callable[..., object], *args: object) -> object:
    """Call an observer's method; its failure is logged, never raised into the run."""
    try:
        return method(*args)
    except Exception as exc:  # an observer must never break a run
        logger.warning("observer_failed", observer=repr(method), error=repr(exc))
        return None
