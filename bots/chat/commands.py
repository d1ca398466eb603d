"""Slash-command parsing: ``add_task "Review Q2 roadmap" category=work`` -> a tool call.

Words are split like a shell (``shlex``): quote text with spaces. The first word is
a tool name or an alias; an alias may preset arguments (``done`` =
``update_task_status status=done``, so ``done 1`` binds ``task_id=1``). A tool marked
``internal`` (run by schedules only) is no command, unless the caller is such a run
(``internal=True``). Positional words bind to the tool's model-visible
parameters in declaration order; ``key=value`` binds by name. Values are coerced by
the parameter's JSON-schema type (integer, number, boolean; arrays and objects as
JSON). A tool whose only parameter is a string takes all positional words as one
text, so ``/shopping add green apples`` needs no quotes; likewise a tool whose last
required parameter is a string takes the remaining words as that text, so
``/taskboard remind 3 in 2 hours`` binds ``when="in 2 hours"``.

Everything here is pure: it never runs a tool, so bad input changes nothing.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

_NAMED = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
_TRUE = frozenset({"true", "yes", "y", "on", "1"})
_FALSE = frozenset({"false", "no", "n", "off", "0"})


class ToolLike(Protocol):
    """What parsing needs from a tool: its name, description and JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


def public(tools: Mapping[str, ToolLike]) -> dict[str, ToolLike]:
    """The tools people may run as commands: every tool not marked ``internal``."""
    return {name: t for name, t in tools.items() if not getattr(t, "internal", False)}


def alias_words(word: str, aliases: Mapping[str, str] | None) -> list[str] | None:
    """What an alias stands for, as words (the tool, then preset ``key=value``), or None."""
    target = {alias.lower(): value for alias, value in (aliases or {}).items()}.get(word.lower())
    return target.split() if target else None


def alias_tool(value: str) -> str:
    """The tool an alias's value runs (its first word)."""
    return value.split(maxsplit=1)[0] if value.strip() else ""


class CommandError(ValueError):
    """A command that cannot be run as typed; the message says why and how."""


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """A tool call ready for ``arun_tool``."""

    tool: str
    arguments: dict[str, Any]


def split_words(text: str) -> list[str]:
    """Shell-like words; CommandError on unbalanced quotes."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise CommandError(f"could not read the command: {exc} (check the quotes)") from None


def resolve_tool(
    word: str, tools: Mapping[str, ToolLike], aliases: Mapping[str, str] | None = None
) -> str | None:
    """The tool a command word names (tool name or alias, any case), or None."""
    lowered = word.lstrip("/").lower()
    by_lower = {name.lower(): name for name in tools}
    if lowered in by_lower:
        return by_lower[lowered]
    expanded = alias_words(lowered, aliases)
    target = expanded[0] if expanded else None
    return target if target in tools else None


def parse_command(
    text: str,
    tools: Mapping[str, ToolLike],
    aliases: Mapping[str, str] | None = None,
    *,
    internal: bool = False,
) -> ParsedCommand:
    """Parse ``tool args...``; CommandError (with usage) when it does not fit.

    ``internal``: the caller is a scheduled run, which may name an internal tool.
    """
    words = split_words(text)
    if not words:
        raise CommandError("no command given")
    if not internal:
        tools = public(tools)
    name = resolve_tool(words[0], tools, aliases)
    if name is None:
        raise CommandError(f"unknown command {words[0]!r}")
    tool = tools[name]
    preset: list[str] = []
    if name.lower() != words[0].lstrip("/").lower():  # an alias: its preset arguments first
        preset = (alias_words(words[0].lstrip("/"), aliases) or [name])[1:]
    try:
        return ParsedCommand(name, bind_arguments(tool, [*preset, *words[1:]]))
    except CommandError as exc:
        raise CommandError(f"{exc}\nusage: {usage(tool)}") from None


def bind_arguments(tool: ToolLike, words: list[str]) -> dict[str, Any]:
    """Bind words to ``tool``'s parameters and coerce them to the declared types."""
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    order = list(properties)
    positional: list[str] = []
    raw: dict[str, str] = {}
    for word in words:
        named = _NAMED.match(word)
        if named is None:
            positional.append(word)
            continue
        key, value = named.groups()
        if key not in properties:
            known = ", ".join(order) or "none"
            raise CommandError(f"unknown parameter {key!r} (parameters: {known})")
        if key in raw:
            raise CommandError(f"parameter {key!r} given twice")
        raw[key] = value
    if len(order) == 1 and _types(properties[order[0]]) == ["string"] and len(positional) > 1:
        positional = [" ".join(positional)]
    free = [p for p in order if p not in raw]
    positional = _rest_as_text(positional, free, properties, tool.parameters.get("required", []))
    if len(positional) > len(free):
        extra = " ".join(positional[len(free) :])
        raise CommandError(f"too many values: {extra!r} (quote text that has spaces)")
    for key, value in zip(free, positional, strict=False):
        raw[key] = value
    missing = [p for p in tool.parameters.get("required", []) if p not in raw]
    if missing:
        raise CommandError(f"missing {', '.join(missing)}")
    return {key: coerce(key, raw[key], properties[key]) for key in order if key in raw}


def _rest_as_text(
    positional: list[str], free: list[str], properties: Mapping[str, Any], required: list[str]
) -> list[str]:
    """Join surplus words into the last free parameter when it is a required string."""
    if not free or len(positional) <= len(free):
        return positional
    last = free[-1]
    if last not in required or _types(properties[last]) != ["string"]:
        return positional
    cut = len(free) - 1
    return [*positional[:cut], " ".join(positional[cut:])]


def _types(schema: Mapping[str, Any]) -> list[str]:
    """The JSON types a parameter schema allows, in the order given."""
    if "anyOf" in schema:
        return [t for option in schema["anyOf"] for t in _types(option)]
    declared = schema.get("type")
    if isinstance(declared, list):
        return [str(t) for t in declared]
    if isinstance(declared, str):
        return [declared]
    if "enum" in schema:
        return ["string"]
    return []


def _coerce_one(kind: str, value: str) -> Any:
    """``value`` as JSON type ``kind``; ValueError when it is not one."""
    text = value.strip()
    if kind == "string":
        return value
    if kind == "integer":
        return int(text.lstrip("#"))  # "#3" is how tasks are shown
    if kind == "number":
        return float(text)
    if kind == "boolean":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ValueError(text)
    if kind == "null":
        if text.lower() in {"null", "none"}:
            return None
        raise ValueError(text)
    if kind in ("array", "object"):
        parsed = json.loads(text)
        if not isinstance(parsed, list if kind == "array" else dict):
            raise ValueError(text)
        return parsed
    raise ValueError(kind)


def coerce(key: str, value: str, schema: Mapping[str, Any]) -> Any:
    """``value`` converted to the type ``schema`` declares; CommandError if none fits."""
    kinds = _types(schema)
    if not kinds:
        return value
    # strings last: "3" for an int-or-string parameter means the number
    for kind in sorted(kinds, key=lambda k: k == "string"):
        try:
            return _coerce_one(kind, value)
        except ValueError:
            continue
    wanted = " or ".join(k for k in kinds if k != "null") or "null"
    example = ' (as JSON, e.g. ["a", "b"])' if "array" in kinds else ""
    raise CommandError(f"{key} must be {wanted}{example}, got {value!r}")


def usage(tool: ToolLike) -> str:
    """One-line usage: ``add_task <title> [category]`` (required in <>, optional in [])."""
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    parts = [tool.name]
    for key in properties:
        parts.append(f"<{key}>" if key in required else f"[{key}]")
    return " ".join(parts)
