"""A deterministic stand-in for a real model, for running example programs unmodified.

A model that always answers "ok" would leave every example's state untouched, and a
comparison of final states would prove nothing. This policy acts on what a request
offers, the same way for every framework that sends it (Chat Completions or the
Responses API):

- when tools are offered and the last message is the user's, it calls the one tool
  whose name best matches the user's words (ties by name, so the order a framework
  lists its tools in does not matter), with arguments built from the tool's JSON
  schema and the user's words; a delegation tool is called when nothing else matches,
  naming the member whose name best matches;
- when a JSON schema is asked for (structured output), it answers an object that
  fits the schema;
- otherwise it answers a short text built from the user's last message.

It is a pure function of the request, so parallel runs share one server safely.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from core.testing import tool_call

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:\.\d+)?")
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be but by can could do does for from have i in into is it its "
        "me my of on or our please so that the their them then there these this to up us "
        "was we what when which who will with would you your now also just",
    )
)
#: tool names a team leader uses to hand work to its members (Agno's and ours)
_DELEGATE = re.compile(r"delegate|transfer|forward")
_MEMBER_TAGS = (
    re.compile(r'<member id="([^"]+)" name="([^"]*)"'),  # Agno's leader prompt
    re.compile(r"^- id: ([^,\n]+)(?:, name: ([^\n—]*))?", re.MULTILINE),  # ours
)


def reply(request: dict[str, Any]) -> Any:
    """The turn for one request: a tool call, a JSON object, or text."""
    messages = list(_messages(request))
    user = next((text for role, text in reversed(messages) if role == "user"), "")
    last_role = messages[-1][0] if messages else "user"
    tools = _tools(request)
    if tools and last_role == "user":
        call = _choose_call(tools, user, _system_text(request, messages))
        if call is not None:
            return call
    schema = _schema(request)
    if schema is not None:
        return json.dumps(_fill(schema, schema, _content_words(user, set()), 0))
    if _json_mode(request):
        return json.dumps({"summary": _echo(user), "topics": _content_words(user, set())[:2]})
    if last_role == "tool":
        return "Done."
    return _echo(user)


def _echo(user: str) -> str:
    words = _WORD.findall(user)[:8]
    return "Noted: " + " ".join(words) if words else "Noted."


# -- reading the request (both wire shapes) -----------------------------------------


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict)
        ).strip()
    return ""


def _messages(request: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(role, text) in order; tool results have the role ``tool``."""
    if "messages" in request:
        for message in request["messages"]:
            yield str(message.get("role")), _text(message.get("content"))
        return
    items = request.get("input")
    if isinstance(items, str):
        yield "user", items
        return
    for item in items or []:
        kind = item.get("type")
        if kind == "function_call_output":
            yield "tool", str(item.get("output", ""))
        elif kind == "function_call":
            yield "assistant", ""
        else:
            role = str(item.get("role", "user"))
            yield ("system" if role == "developer" else role), _text(item.get("content"))


def _system_text(request: dict[str, Any], messages: list[tuple[str, str]]) -> str:
    texts = [text for role, text in messages if role == "system"]
    if isinstance(request.get("instructions"), str):
        texts.append(request["instructions"])
    return "\n".join(texts)


def _tools(request: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, parameters schema) of each function tool."""
    found = []
    for tool in request.get("tools") or []:
        spec = tool.get("function", tool)
        if tool.get("type", "function") == "function" and spec.get("name"):
            found.append((spec["name"], spec.get("parameters") or {}))
    return found


def _schema(request: dict[str, Any]) -> dict[str, Any] | None:
    formats = [request.get("response_format"), (request.get("text") or {}).get("format")]
    for fmt in formats:
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            inner = fmt.get("json_schema", fmt)
            schema = inner.get("schema")
            if isinstance(schema, dict):
                return schema
    return None


def _json_mode(request: dict[str, Any]) -> bool:
    formats = [request.get("response_format"), (request.get("text") or {}).get("format")]
    return any(isinstance(f, dict) and f.get("type") == "json_object" for f in formats)


# -- choosing a call ----------------------------------------------------------------


def _tokens(name: str) -> list[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return [t.lower() for t in re.split(r"[^A-Za-z0-9]+", spaced) if t]


def _matches(token: str, word: str) -> bool:
    if token == word:
        return True
    short, long = sorted((token, word), key=len)
    return len(short) >= 3 and long.startswith(short)


def _score(name: str, words: list[str]) -> int:
    return sum(any(_matches(t, w) for w in words) for t in _tokens(name) if t not in _STOP)


def _content_words(text: str, exclude: set[str]) -> list[str]:
    found = []
    for word in _WORD.findall(text):
        low = word.lower()
        if low in _STOP or any(_matches(t, low) for t in exclude):
            continue
        found.append(low if not word[0].isdigit() else word)
    return found


def _choose_call(tools: list[tuple[str, dict[str, Any]]], user: str, system: str) -> Any:
    words = [w.lower() for w in _WORD.findall(user)]
    scored = sorted((-_score(name, words), name, params) for name, params in tools)
    best_score, name, params = scored[0]
    if best_score == 0:
        delegates = sorted((n, p) for n, p in tools if _DELEGATE.search(n))
        if not delegates:
            return None
        name, params = delegates[0]
    content = _content_words(user, set(_tokens(name)))
    args = _arguments(name, params, user, content, system)
    return tool_call(name, **args)


def _member_id(user: str, system: str) -> str:
    members: list[tuple[str, str]] = []
    for pattern in _MEMBER_TAGS:
        for m in pattern.finditer(system):
            members.append((m.group(1).strip(), (m.group(2) or "").strip()))
    if not members:
        return "member"
    words = [w.lower() for w in _WORD.findall(user)]
    ranked = sorted(members, key=lambda m: -_score(f"{m[1]} {m[0]}", words))
    return ranked[0][0]


def _arguments(
    name: str, params: dict[str, Any], user: str, content: list[str], system: str
) -> dict[str, Any]:
    properties = params.get("properties") or {}
    required = params.get("required")
    names = list(properties) if required is None else [p for p in properties if p in required]
    words = iter(content or ["item"])
    args: dict[str, Any] = {}
    for param in names:
        spec = properties[param]
        if param == "member_id":
            args[param] = _member_id(user, system)
        elif param in ("task", "task_description", "input", "query", "message"):
            args[param] = user
        else:
            args[param] = _value(spec, params, words, user)
    return args


def _value(spec: dict[str, Any], root: dict[str, Any], words: Iterator[str], user: str) -> Any:
    spec = _resolve(spec, root)
    if "enum" in spec:
        options = spec["enum"]
        lowered = user.lower()
        return next((o for o in options if str(o).lower() in lowered), options[0])
    kind = _kind(spec)
    if kind in ("integer", "number"):
        number = re.search(r"\d+", user)
        return int(number.group()) if number else 1
    if kind == "boolean":
        return True
    if kind == "array":
        return [_value(spec.get("items") or {"type": "string"}, root, words, user)]
    if kind == "object":
        if spec.get("properties"):
            return _fill(spec, root, list(words), 0)
        return {next(words, "key"): next(words, "value")}
    return next(words, "item")


def _kind(spec: dict[str, Any]) -> str:
    kind = spec.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return str(kind)


def _resolve(spec: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in spec:
        path = spec["$ref"].lstrip("#/").split("/")
        target: Any = root
        for part in path:
            target = target.get(part, {})
        spec = target
    for key in ("anyOf", "oneOf", "allOf"):
        if key in spec:
            options = [o for o in spec[key] if o.get("type") != "null"] or spec[key]
            return _resolve(options[0], root)
    return spec


def _fill(spec: dict[str, Any], root: dict[str, Any], words: list[str], depth: int) -> Any:
    """A value that fits ``spec``: every property present, words from the prompt."""
    spec = _resolve(spec, root)
    source = iter(words or ["value"])
    if _kind(spec) == "object" and depth < 6:
        return {
            key: _fill(sub, root, words, depth + 1)
            if _kind(_resolve(sub, root)) == "object"
            else _value(sub, root, source, " ".join(words))
            for key, sub in (spec.get("properties") or {}).items()
        }
    return _value(spec, root, source, " ".join(words))
