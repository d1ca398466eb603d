"""Toolkit: a named group of tools, usually methods sharing some setup (Agno's options).

As in Agno, ``register`` files a coroutine function under ``async_functions`` and any
other callable under ``functions``; ``async_tools=[(method, "name")]`` registers an
async variant of a sync tool under the same name. The agent uses
:meth:`Toolkit.get_async_functions` — the async variant where there is one — for
``arun`` and ``run`` alike, since both run on the same async runtime (Agno's sync
``run`` uses the sync tools). ``@tool``-decorated methods keep their options and get
``self`` bound. ``external_execution_required_tools`` is refused (Statebot does not
execute tools outside the agent).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from core.tools.cache import DEFAULT_CACHE_TTL, ResultCache
from core.tools.function import Function


class Toolkit:
    """Register callables with :meth:`register`; the agent offers all of them."""

    def __init__(
        self,
        name: str = "toolkit",
        tools: Sequence[Callable[..., Any] | Function] = (),
        async_tools: Sequence[tuple[Callable[..., Any], str]] = (),
        instructions: str | None = None,
        add_instructions: bool = False,
        include_tools: Iterable[str] | None = None,
        exclude_tools: Iterable[str] | None = None,
        requires_confirmation_tools: Iterable[str] | None = None,
        external_execution_required_tools: Iterable[str] | None = None,
        stop_after_tool_call_tools: Iterable[str] | None = None,
        show_result_tools: Iterable[str] | None = None,
        cache_results: bool = False,
        cache_ttl: float = DEFAULT_CACHE_TTL,
        cache_dir: str | None = None,
        auto_register: bool = True,
    ) -> None:
        if external_execution_required_tools:
            raise ValueError(
                "external_execution_required_tools is not supported: Statebot has no tools "
                "executed outside the agent; use requires_confirmation_tools instead"
            )
        self.name = name
        self.tools = list(tools)
        self.instructions = instructions
        self.add_instructions = add_instructions
        self.include_tools = list(include_tools) if include_tools is not None else None
        self.exclude_tools = list(exclude_tools) if exclude_tools is not None else None
        self.requires_confirmation_tools = list(requires_confirmation_tools or [])
        self.stop_after_tool_call_tools = list(stop_after_tool_call_tools or [])
        self.show_result_tools = list(show_result_tools or [])
        self.cache_results = cache_results
        self.cache_ttl = cache_ttl
        self.cache_dir = cache_dir
        #: sync tools (and tools without an async variant)
        self.functions: dict[str, Function] = {}
        #: async tools; preferred over a sync tool of the same name
        self.async_functions: dict[str, Function] = {}
        known = [_tool_name(t) for t in self.tools] + [n for _, n in async_tools]
        for label, names in (
            ("include_tools", self.include_tools),
            ("exclude_tools", self.exclude_tools),
        ):
            missing = sorted(set(names or []) - set(known))
            if missing:
                raise ValueError(f"{label} names tools not in the toolkit: {', '.join(missing)}")
        if auto_register:
            for fn in self.tools:
                self.register(fn)
            for fn, tool_name in async_tools:
                self.register(fn, name=tool_name)

    def register(
        self, fn: Callable[..., Any] | Function, name: str | None = None
    ) -> Function | None:
        """Add a tool (None when include/exclude leave it out); ``self`` is never in its schema."""
        tool_name = name or _tool_name(fn)
        if self.include_tools is not None and tool_name not in self.include_tools:
            return None
        if self.exclude_tools is not None and tool_name in self.exclude_tools:
            return None
        base = fn if isinstance(fn, Function) else Function(fn, name=tool_name)
        # decorator settings win; the toolkit's lists and cache add to them (Agno's rule)
        stop = base.stop_after_tool_call or tool_name in self.stop_after_tool_call_tools
        function = base.bind(self).replace(
            name=tool_name,
            requires_confirmation=base.requires_confirmation
            or tool_name in self.requires_confirmation_tools,
            stop_after_tool_call=stop,
            show_result=base.show_result or stop or tool_name in self.show_result_tools,
            toolkit_instructions=self.instructions if self.add_instructions else None,
        )
        if function.cache is None and self.cache_results:
            function = function.replace(
                cache=ResultCache(ttl=self.cache_ttl, directory=self.cache_dir)
            )
        table = self.async_functions if function.is_async else self.functions
        table[function.name] = function
        return function

    def get_functions(self) -> dict[str, Function]:
        """The sync tools (Agno's sync mode)."""
        return self.functions

    def get_async_functions(self) -> dict[str, Function]:
        """Every tool, the async variant where there is one: what the agent offers."""
        return {**self.functions, **self.async_functions}

    def __repr__(self) -> str:
        return f"<Toolkit name={self.name} functions={list(self.get_async_functions())}>"


def _tool_name(fn: Callable[..., Any] | Function) -> str:
    if isinstance(fn, Function):
        return fn.name
    return str(getattr(fn, "__name__", "tool"))
