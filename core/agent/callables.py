"""What an owner reads per run from callables (Agno's callable instructions and factories).

``instructions=`` and ``system_message=`` may be functions, ``tools=`` a factory
returning the tool list, and a team's ``members=`` a factory returning its members.
Each is called once per run, after the run holds its session, with the parameters it
names among ``agent``, ``team``, ``run_context`` and ``session_state`` (sync or async).
``session_state`` and ``run_context.session_state`` are the run's live state under its
lease: what a callable changes there is saved by the run, like a tool's change.

Factories (tools, members) are cached per owner as Agno's ``cache_callables=True``
does: by the owner's ``callable_*_cache_key`` function when given, else by the run's
``user_id``, else its ``session_id``. ``cache_callables=False`` calls the factory on
every run. Instructions and system messages are never cached (Agno calls them on every
run). Unlike Agno, the cache is bounded (least recently used keys go first), so an
agent serving many users does not grow without end. A cached tool list is reused by
later runs: tools should read state through their injected parameters, not through a
``run_context`` captured when the factory ran (that one belongs to an earlier run).
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.run.context import RunContext
from core.run.run_input import RunInput
from core.tools.collect import LiveToolkit, collect_functions, with_live_tools
from core.tools.function import Function
from core.tools.toolkit import Toolkit

if TYPE_CHECKING:
    from core.agent.loop import LoopSpec

#: the parameters a callable instruction or factory may name (Agno's set)
RUN_PARAMS = ("agent", "team", "run_context", "session_state")
#: cached keys per factory (least recently used dropped first)
CACHE_LIMIT = 1024

#: (spec, run context, injected values, run input or None when resumed) -> this run's spec
PerRun = Callable[
    ["LoopSpec", RunContext, Mapping[str, Any], RunInput | None], Awaitable["LoopSpec"]
]


def is_factory(value: object) -> bool:
    """A callable that makes tools or members (not a tool, toolkit or class itself)."""
    return callable(value) and not isinstance(value, (type, Toolkit, Function))


def static_list(value: Sequence[Any] | Callable[..., Any] | None) -> list[Any]:
    """The items given as a list (none when a factory makes them per run)."""
    if value is None or is_factory(value):
        return []
    return list(value)  # type: ignore[arg-type]  # not a factory: a sequence


async def call_with_run(function: Callable[..., Any], injected: Mapping[str, Any]) -> Any:
    """Call ``function`` with the run values it names; await the result if it is awaitable."""
    params = inspect.signature(function).parameters
    kwargs = {name: injected.get(name) for name in RUN_PARAMS if name in params}
    result = function(**kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


class FactoryCache:
    """A factory's results by cache key, bounded to ``limit`` keys (LRU)."""

    __slots__ = ("_entries", "_lock", "limit")

    def __init__(self, limit: int = CACHE_LIMIT) -> None:
        self.limit = limit
        self._entries: OrderedDict[str, list[Any]] = OrderedDict()
        # one owner may serve runs on several event loops (the sync API's own loop)
        self._lock = threading.Lock()

    def get(self, key: str) -> list[Any] | None:
        """The cached list for ``key`` (a private copy of the list), or None."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return list(found)

    def put(self, key: str, value: list[Any]) -> None:
        """Remember ``value`` for ``key``, dropping the least recently used past the limit."""
        with self._lock:
            self._entries[key] = list(value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget every cached result."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


class Factory:
    """A ``tools=`` or ``members=`` factory with its cache settings."""

    __slots__ = ("cache", "key_function", "make", "what")

    def __init__(
        self,
        make: Callable[..., Any],
        *,
        what: str,
        cache: bool,
        key_function: Callable[..., Any] | None,
    ) -> None:
        self.make = make
        self.what = what
        self.cache = FactoryCache() if cache else None
        self.key_function = key_function

    async def resolve(self, run_context: RunContext, injected: Mapping[str, Any]) -> list[Any]:
        """The list for this run: cached for its key, or made now (and cached)."""
        key: str | None = None
        if self.cache is not None:
            if self.key_function is not None:
                key = await call_with_run(self.key_function, injected)
            else:
                key = run_context.user_id or run_context.session_id
            if key is not None and (cached := self.cache.get(key)) is not None:
                return cached
        made = await call_with_run(self.make, injected)
        if made is None:
            made = []
        elif not isinstance(made, (list, tuple)):
            raise TypeError(
                f"the {self.what} factory {getattr(self.make, '__name__', self.make)!r} must "
                f"return a list or tuple, not {type(made).__name__}"
            )
        result = list(made)
        if self.cache is not None and key is not None:
            self.cache.put(key, result)
        return result


@dataclasses.dataclass(slots=True)
class RunCallables:
    """An owner's callables, resolved into the loop spec at the start of each run."""

    instructions: Callable[..., Any] | None = None
    system_message: Callable[..., Any] | None = None
    tools: Factory | None = None
    #: tools the owner adds itself (agentic state, memory, ...), kept beside the factory's
    extra_tools: Sequence[Function] = ()

    @property
    def any(self) -> bool:
        """Whether anything must be resolved per run."""
        return any(x is not None for x in (self.instructions, self.system_message, self.tools))

    async def __call__(
        self,
        spec: LoopSpec,
        run_context: RunContext,
        injected: Mapping[str, Any],
        run_input: RunInput | None,
    ) -> LoopSpec:
        """``spec`` with this run's instructions, system message and tools."""
        prompt = spec.prompt
        if self.instructions is not None:
            text = await call_with_run(self.instructions, injected)
            if text is not None and not isinstance(text, (str, list, tuple)):
                raise TypeError(
                    f"instructions function must return a string or a list of strings, "
                    f"not {type(text).__name__}"
                )
            prompt = dataclasses.replace(prompt, instructions=text)
        if self.system_message is not None:
            text = await call_with_run(self.system_message, injected)
            if not isinstance(text, str):
                raise TypeError(
                    f"system_message function must return a string, not {type(text).__name__}"
                )
            prompt = dataclasses.replace(prompt, system_message=text)
        functions = spec.functions
        if self.tools is not None:
            made = await self.tools.resolve(run_context, injected)
            live: list[LiveToolkit] = []  # a factory may make MCP toolkits too
            functions = collect_functions([*made, *self.extra_tools], live=live)
            for toolkit in live:
                await toolkit.aready(run_context.user_id)
            functions = with_live_tools(functions, live)
        return dataclasses.replace(spec, prompt=prompt, functions=functions)


def split_callable(value: Any) -> tuple[Any, Callable[..., Any] | None]:
    """(the static value, or None; the callable, or None) of an argument that may be either."""
    if callable(value) and not isinstance(value, str):
        return None, value
    return value, None


def owner_callables(
    instructions: Any,
    system_message: Any,
    tools: Any,
    extra_tools: Sequence[Function],
    *,
    cache: bool,
    tools_key: Callable[..., Any] | None,
) -> RunCallables:
    """The per-run callables among an owner's arguments (Agent's and Team's rule)."""
    return RunCallables(
        instructions=split_callable(instructions)[1],
        system_message=split_callable(system_message)[1],
        tools=Factory(tools, what="tools", cache=cache, key_function=tools_key)
        if is_factory(tools)
        else None,
        extra_tools=tuple(extra_tools),
    )


class CallableCacheMethods:
    """Agno's ``clear_callable_cache`` for an owner whose factories cache their results."""

    callables: RunCallables

    def cached_factories(self) -> list[Factory | None]:
        """The factories whose cache :meth:`clear_callable_cache` empties."""
        return [self.callables.tools]

    def clear_callable_cache(self) -> None:
        """Forget the cached results of the owner's factories (Agno's name)."""
        for factory in self.cached_factories():
            if factory is not None and factory.cache is not None:
                factory.cache.clear()

    async def aclear_callable_cache(self) -> None:
        """:meth:`clear_callable_cache`, for async code."""
        self.clear_callable_cache()
