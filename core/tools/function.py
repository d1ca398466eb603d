"""Function: a callable the model may call, with the JSON schema it is shown.

The schema comes from the type hints (validated by pydantic) and the docstring's
``Args:`` section. Parameters the runtime injects (``session_state``, ``run_context``,
``agent``, ``team``, ``agent_state``) are left out of the schema.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any, get_type_hints

import pydantic

from core.exceptions import ToolArgumentError
from core.run.context import RunContext

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
    """A tool: name, description, JSON-schema parameters, and the code to run."""

    __slots__ = (
        "_model",
        "description",
        "entrypoint",
        "injected",
        "is_async",
        "name",
        "parameters",
        "timeout",
    )

    def __init__(
        self,
        entrypoint: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
    ) -> None:
        if timeout is not None and not timeout > 0:
            raise ValueError(f"tool timeout must be positive, not {timeout}")
        self.entrypoint = entrypoint
        #: seconds one call may take; None: the agent's ``tool_timeout``
        self.timeout = timeout
        self.name: str = name or str(getattr(entrypoint, "__name__", "tool"))
        summary, arg_docs = parse_docstring(inspect.getdoc(entrypoint))
        self.description = description or summary
        self.is_async = inspect.iscoroutinefunction(entrypoint)
        self.injected, self._model = _build_model(entrypoint, self.name, arg_docs)
        self.parameters = _clean_schema(self._model.model_json_schema())

    @classmethod
    def from_callable(cls, fn: Callable[..., Any] | Function, **kw: Any) -> Function:
        """Wrap a plain callable; a Function passes through unchanged."""
        return fn if isinstance(fn, Function) else cls(fn, **kw)

    def to_openai(self) -> dict[str, Any]:
        """The Chat Completions tool schema."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def validate(self, arguments: Any) -> dict[str, Any]:
        """Arguments checked and converted to the declared types, or ToolArgumentError."""
        if not isinstance(arguments, dict):
            raise ToolArgumentError(f"{self.name}: arguments must be a JSON object")
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


def _is_injected(param: inspect.Parameter, hint: Any) -> bool:
    return param.name in INJECTED_PARAMS or hint is RunContext


def _build_model(
    fn: Callable[..., Any], name: str, arg_docs: dict[str, str]
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

    cleaned = strip(schema)
    cleaned.setdefault("properties", {})
    cleaned["type"] = "object"
    return cleaned
