"""Function: a callable the model may call, with the JSON schema it is shown.

The schema comes from the type hints (validated by pydantic) and the docstring's
``Args:`` section. Parameters the runtime injects (``session_state``, ``run_context``,
``agent``, ``team``, ``agent_state``) are left out of the schema.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, get_type_hints

import pydantic

from core.exceptions import ToolArgumentError
from core.run.context import RunContext
from core.tools.cache import DEFAULT_CACHE_TTL, ResultCache
from core.tools.inline import InlineRecord
from core.tools.result import ToolResult as ToolResult  # Agno's path: agno.tools.function

#: parameter names the runtime fills in; the model never sees them
INJECTED_PARAMS = frozenset({"session_state", "run_context", "agent", "team", "agent_state"})

_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """(summary, {param: description}) from a Google-style docstring."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    section = "summary"
    current: str | None = None
    for line in lines:
        header = line.strip().lower().rstrip(":")
        if line.strip().endswith(":") and header in {"args", "arguments", "parameters"}:
            section, current = "args", None
            continue
        if line.strip().endswith(":") and header in {"returns", "raises", "yields", "example"}:
            section = "other"
            continue
        if section == "summary":
            summary.append(line)
        elif section == "args":
            match = _ARG_LINE.match(line)
            if match and not line.startswith((" " * 8, "\t\t")):
                current = match.group(1).lstrip("*")
                params[current] = match.group(3).strip()
            elif current and line.strip():
                params[current] = f"{params[current]} {line.strip()}".strip()
    return "\n".join(summary).strip(), params


class Function:
    """A tool: name, description, JSON-schema parameters, the code to run, and its options.

    The options are Agno's ``@tool`` options (see :func:`core.tools.decorator.tool`
    and docs/runtime.md, "Tools"): hooks, caching and ``strict`` are honoured here and
    in :mod:`core.tools.call`; ``requires_confirmation``, ``stop_after_tool_call`` and
    ``show_result`` are flags the run loop reads.
    """

    __slots__ = (
        "_model",
        "add_instructions",
        "cache",
        "description",
        "entrypoint",
        "injected",
        "inline",
        "inline_record",
        "instructions",
        "internal",
        "is_async",
        "name",
        "parameters",
        "post_hook",
        "pre_hook",
        "requires_confirmation",
        "show_result",
        "stop_after_successful_tool_call",
        "stop_after_tool_call",
        "strict",
        "timeout",
        "tool_hooks",
        "toolkit_instructions",
    )

    def __init__(
        self,
        entrypoint: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        strict: bool | None = None,
        instructions: str | None = None,
        add_instructions: bool = True,
        show_result: bool = False,
        stop_after_tool_call: bool = False,
        stop_after_successful_tool_call: bool = False,
        requires_confirmation: bool = False,
        pre_hook: Callable[..., Any] | None = None,
        post_hook: Callable[..., Any] | None = None,
        tool_hooks: Sequence[Callable[..., Any]] | None = None,
        cache_results: bool = False,
        cache_ttl: float = DEFAULT_CACHE_TTL,
        cache_dir: str | None = None,
        internal: bool = False,
        parameters: dict[str, Any] | None = None,
        inline: bool | None = None,
    ) -> None:
        """``parameters``: the JSON schema the model is shown, when the tool brings its
        own (an MCP server's tool); its arguments are then passed on unchecked here, for
        the tool to validate, instead of being checked against the type hints."""
        if timeout is not None and not timeout > 0:
            raise ValueError(f"tool timeout must be positive, not {timeout}")
        for label, hook in (("pre_hook", pre_hook), ("post_hook", post_hook)):
            if hook is not None and not callable(hook):
                raise TypeError(f"{label} must be a callable, not {hook!r}")
        hooks = list(tool_hooks or [])
        if not all(callable(h) for h in hooks):
            raise TypeError(f"tool_hooks must be callables, not {hooks!r}")
        self.entrypoint = entrypoint
        #: seconds one call may take; None: the agent's ``tool_timeout``
        self.timeout = timeout
        self.name: str = name or str(getattr(entrypoint, "__name__", "tool"))
        summary, arg_docs = parse_docstring(inspect.getdoc(entrypoint))
        self.description = description or summary
        # an async generator is driven on the loop like a coroutine
        self.is_async = inspect.iscoroutinefunction(entrypoint) or inspect.isasyncgenfunction(
            entrypoint
        )
        self.injected, model = _build_model(entrypoint, self.name, arg_docs)
        self._model: type[pydantic.BaseModel] | None = None if parameters is not None else model
        self.parameters = _clean_schema(
            parameters if parameters is not None else model.model_json_schema()
        )
        self.strict = strict
        self.instructions = instructions
        self.add_instructions = add_instructions
        #: a toolkit's own instructions, shown once per toolkit (see core.agent.prompt)
        self.toolkit_instructions: str | None = None
        self.show_result = show_result
        self.stop_after_tool_call = stop_after_tool_call
        self.stop_after_successful_tool_call = stop_after_successful_tool_call
        #: the run must pause for a person's approval before this tool runs
        self.requires_confirmation = requires_confirmation
        #: not Agno's: code (a schedule, a direct call) runs it; the model is never
        #: offered it, and the chat layer takes it as no command
        self.internal = internal
        #: not Agno's: True, a sync tool declared cheap and never blocking, runs on the
        #: event loop against the live state (see :meth:`runs_inline`); False keeps it
        #: on a worker thread; None (the default) decides by measuring its calls
        self.inline = inline
        #: what this tool's calls have shown (core.tools.inline), for ``inline=None``
        self.inline_record = InlineRecord()
        if inline and self.is_async:
            raise ValueError(f"tool {self.name!r}: inline=True is for sync tools only")
        self.pre_hook = pre_hook
        self.post_hook = post_hook
        self.tool_hooks: list[Callable[..., Any]] = hooks
        self.cache: ResultCache | None = (
            ResultCache(ttl=cache_ttl, directory=cache_dir) if cache_results else None
        )
        if not cache_results and cache_dir is not None:
            raise ValueError("cache_dir is only used with cache_results=True")

    @classmethod
    def from_callable(cls, fn: Callable[..., Any] | Function, **kw: Any) -> Function:
        """Wrap a plain callable; a Function passes through unchanged."""
        return fn if isinstance(fn, Function) else cls(fn, **kw)

    def replace(self, **changes: Any) -> Function:
        """A copy with some attributes changed (``name``, ``entrypoint``, flags, ...)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"Function has no option {', '.join(sorted(unknown))}")
        copy = object.__new__(Function)
        for slot in self.__slots__:
            setattr(copy, slot, changes.get(slot, getattr(self, slot)))
        return copy

    def bind(self, instance: object) -> Function:
        """This tool with ``instance`` as the ``self`` of a method entrypoint."""
        if not _takes_self(self.entrypoint):
            return self
        return self.replace(entrypoint=self.entrypoint.__get__(instance, type(instance)))

    def __get__(self, instance: object, owner: type | None = None) -> Function:
        # ``@tool`` on a method: ``obj.method`` is the tool bound to obj, as for functions
        return self if instance is None else self.bind(instance)

    def runs_inline(self, hooks: Sequence[Callable[..., Any]]) -> bool:
        """Whether a call, inside the agent's ``hooks``, runs on the event loop.

        Only a sync tool declared ``inline``, or measured cheap while undeclared
        (:mod:`core.tools.inline`), with no sync hook around it (agent's, its own, pre
        or post): a sync hook runs on a worker thread, and the call is then isolated like
        any sync tool's. An inline call cannot be interrupted: its timeout is noticed
        when it returns (its changes are then undone), so declare only tools that never
        block.
        """
        if self.is_async or self.inline is False:
            return False
        if self.inline is None and not self.inline_record.promoted:
            return False
        around = [*hooks, *self.tool_hooks, self.pre_hook, self.post_hook]
        return all(h is None or inspect.iscoroutinefunction(h) for h in around)

    def stops_run(self, *, error: bool) -> bool:
        """Whether the run ends after a call of this tool (the loop asks)."""
        return self.stop_after_tool_call or (self.stop_after_successful_tool_call and not error)

    def to_openai(self) -> dict[str, Any]:
        """The Chat Completions tool schema (strict when ``strict=True``)."""
        spec: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": _strict_schema(self.parameters) if self.strict else self.parameters,
        }
        if self.strict:
            spec["strict"] = True
        return {"type": "function", "function": spec}

    def validate(self, arguments: object) -> dict[str, Any]:
        """Arguments checked and converted to the declared types, or ToolArgumentError."""
        if not isinstance(arguments, dict):
            raise ToolArgumentError(f"{self.name}: arguments must be a JSON object")
        if self._model is None:  # a schema of its own: the tool checks its arguments
            return dict(arguments)
        hidden = sorted(INJECTED_PARAMS & set(arguments))
        if hidden:
            raise ToolArgumentError(f"{self.name}: {', '.join(hidden)} cannot be passed")
        try:
            parsed = self._model.model_validate(arguments)
        except pydantic.ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
                for err in exc.errors()
            )
            raise ToolArgumentError(f"{self.name}: invalid arguments: {problems}") from None
        return {name: getattr(parsed, name) for name in parsed.model_fields_set}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.entrypoint(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Function({self.name!r})"


@dataclass(slots=True)
class FunctionCall:
    """A call as ``pre_hook`` / ``post_hook`` see it (Agno's ``fc``)."""

    function: Function
    arguments: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None
    #: the tool's result, once it ran (or came from the cache)
    result: Any = None


def _is_injected(param: inspect.Parameter, hint: object) -> bool:
    return param.name in INJECTED_PARAMS or hint is RunContext


def _build_model(
    fn: Callable[..., object], name: str, arg_docs: dict[str, str]
) -> tuple[frozenset[str], type[pydantic.BaseModel]]:
    signature = inspect.signature(fn)
    try:
        hints = get_type_hints(fn)
    except Exception:  # unresolvable forward refs: fall back to the raw annotations
        hints = {}
    injected: set[str] = set()
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or param.name == "self":
            continue
        hint = hints.get(param.name, param.annotation)
        if _is_injected(param, hint):
            injected.add(param.name)
            continue
        annotation = Any if hint is inspect.Parameter.empty else hint
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (
            annotation,
            pydantic.Field(default, description=arg_docs.get(param.name) or None),
        )
    model = pydantic.create_model(
        f"{name}_arguments",
        __config__=pydantic.ConfigDict(extra="forbid", arbitrary_types_allowed=True),
        **fields,
    )
    return frozenset(injected), model


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's titles, which only add noise to the model's prompt."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "title" or isinstance(v, dict)}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    cleaned: dict[str, Any] = strip(schema)
    cleaned.setdefault("properties", {})
    cleaned["type"] = "object"
    return cleaned


def _takes_self(fn: Callable[..., object]) -> bool:
    """An unbound method: its first parameter is named ``self`` (Agno's rule)."""
    try:
        first = next(iter(inspect.signature(fn).parameters), None)
    except (TypeError, ValueError):
        return False
    return first == "self"


def _strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI's strict form: every object lists all its properties as required and no others."""

    def tighten(node: Any) -> Any:
        if isinstance(node, list):
            return [tighten(v) for v in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("properties", "$defs") and isinstance(value, dict):
                out[key] = {name: tighten(sub) for name, sub in value.items()}
            elif key != "default":  # strict schemas may not carry defaults
                out[key] = tighten(value)
        if node.get("type") == "object" or "properties" in node:
            out["additionalProperties"] = False
            out["required"] = list(out.get("properties", {}))
        return out

    strict: dict[str, Any] = tighten(schema)
    return strict
