"""Structured output (Agno's ``output_schema=``): the request format and the reply's parsing.

A pydantic model class becomes a Chat Completions ``response_format`` of type
``json_schema`` (strict: every property required, no extra properties, as OpenAI's
structured outputs demand); a dict is sent as the ``response_format`` it already is
(``{"type": "json_object"}`` or a full ``json_schema`` block). A model that cannot
take a ``response_format`` (``Model.supports_response_format`` is False) is told the
schema in its system message instead (:func:`json_prompt`).

The reply is parsed as Agno does: JSON text (also inside a fenced code block) into
the model class, or into a dict for a dict schema; a reply that does not parse stays
the text it was, and a warning is logged (Agno's behaviour).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

#: what ``output_schema=`` accepts
OutputSchema = type[BaseModel] | dict[str, Any]

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def check_output_schema(schema: object) -> OutputSchema | None:
    """``schema`` if it is a pydantic model class, a dict, or None; else a clear error."""
    if schema is None or isinstance(schema, dict):
        return schema
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema
    raise TypeError(f"output_schema must be a pydantic model class or a dict, not {schema!r}")


def response_format_of(schema: OutputSchema) -> dict[str, Any]:
    """The Chat Completions ``response_format`` asking for ``schema``."""
    if isinstance(schema, dict):
        return copy.deepcopy(schema)
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema.__name__,
            "schema": _strict(schema.model_json_schema()),
            "strict": True,
        },
    }


def json_prompt(schema: OutputSchema) -> str:
    """The system-message text asking for ``schema`` from a model without response_format."""
    shown = schema if isinstance(schema, dict) else schema.model_json_schema()
    return (
        "Reply with a single JSON object and nothing else, fitting this JSON schema:\n"
        f"<json_schema>\n{json.dumps(shown, ensure_ascii=False)}\n</json_schema>"
    )


def parse_reply(text: str, schema: OutputSchema) -> BaseModel | dict[str, Any] | None:
    """The reply as the schema's type, or None when it does not parse or fit."""
    candidates = [text]
    fenced = _FENCE.match(text)
    if fenced:
        candidates.append(fenced.group(1))
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(schema, dict):
            if isinstance(data, dict):
                return data
            continue
        try:
            return schema.model_validate(data)
        except ValidationError:
            continue
    return None


def _strict(schema: Any) -> Any:
    """OpenAI's strict-mode rules over a pydantic JSON schema (recursively, in place)."""
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            extra = schema.get("additionalProperties")
            if extra is None or extra is True:  # a dict[str, T] field keeps its value schema
                schema["additionalProperties"] = False
            if "properties" in schema:
                schema["required"] = list(schema["properties"])
        if "default" in schema and schema["default"] is None:
            del schema["default"]
        for value in schema.values():
            _strict(value)
    elif isinstance(schema, list):
        for item in schema:
            _strict(item)
    return schema
