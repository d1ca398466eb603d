"""Toolkit: a named group of tools, usually methods sharing some setup."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from core.tools.function import Function


class Toolkit:
    """Register callables with :meth:`register`; the agent offers all of them."""

    def __init__(
        self,
        name: str = "toolkit",
        tools: Iterable[Callable[..., Any]] = (),
        **_: Any,  # Agno's toolkit options (instructions, caching, ...) are accepted
    ) -> None:
        self.name = name
        self.functions: dict[str, Function] = {}
        for fn in tools:
            self.register(fn)

    def register(self, fn: Callable[..., Any], name: str | None = None) -> Function:
        """Add a tool; a bound method's ``self`` is not part of its schema."""
        function = Function.from_callable(fn) if name is None else Function(fn, name=name)
        self.functions[function.name] = function
        return function
