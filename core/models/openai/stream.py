"""Assemble streamed tool-call deltas into whole ToolCall objects.

Chat Completions streams a tool call in pieces: the first delta for an ``index``
carries the call id and function name, later ones carry slices of the arguments
text. Servers differ in the details, so the assembler is lenient:

- a name repeated on every delta is kept once, a name sent in fragments is joined;
- a delta that reuses an index but carries a *different* id starts a new call
  (some servers number every parallel call 0);
- a call without an id gets a generated one, and empty arguments become ``{}``.

Arguments stay raw text: the runtime parses them and reports bad JSON to the model.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from core.models.base import ToolCall

_generated_ids = itertools.count(1)


@dataclass(slots=True)
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ToolCallAssembler:
    """Collects tool-call deltas by index; ``calls()`` returns them in arrival order."""

    __slots__ = ("_by_index", "_order")

    def __init__(self) -> None:
        self._order: list[_PartialCall] = []
        self._by_index: dict[int, _PartialCall] = {}

    def add(
        self,
        index: int | None,
        *,
        id: str | None = None,
        name: str | None = None,
        arguments: str | None = None,
    ) -> None:
        """Fold one delta into the call it belongs to."""
        key = index if index is not None else len(self._order)
        call = self._by_index.get(key)
        if call is None or (id and call.id and id != call.id):
            call = _PartialCall()
            self._by_index[key] = call
            self._order.append(call)
        if id and not call.id:
            call.id = id
        if name and name != call.name:
            call.name = name if not call.name else call.name + name
        if arguments:
            call.arguments.append(arguments)

    def calls(self) -> tuple[ToolCall, ...]:
        """The whole tool calls seen so far."""
        for call in self._order:
            if not call.id:
                call.id = f"call_stream_{next(_generated_ids)}"
        return tuple(
            ToolCall(id=call.id, name=call.name, arguments="".join(call.arguments) or "{}")
            for call in self._order
        )
