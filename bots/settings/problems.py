"""A settings class that refuses its values, said in one line per problem.

pydantic's ``ValidationError`` is forty lines of frames and field paths; an operator
needs the variable, where its value came from (the environment or which ``.env``
file, as ``statebot config`` shows it) and what is wrong. The value itself is never
repeated: several settings are secrets.
"""

from __future__ import annotations

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings

from bots.settings.env import EnvSettings, setting_sources
from bots.settings.sources import env_file_path

__all__ = ["settings_class_of", "settings_problems"]


def settings_class_of(exc: ValidationError) -> type[EnvSettings] | None:
    """The settings class that raised ``exc``; None when another model did (a bug,
    which keeps its traceback)."""
    queue: list[type[BaseSettings]] = [EnvSettings]
    while queue:
        cls = queue.pop(0)
        if cls.__name__ == exc.title and issubclass(cls, EnvSettings):
            return cls
        queue.extend(cls.__subclasses__())
    return None


def settings_problems(exc: ValidationError, settings_cls: type[EnvSettings]) -> list[str]:
    """One line per refused value: ``VAR (from SOURCE): why``."""
    sources = setting_sources(settings_cls)
    lines = []
    for error in exc.errors(include_url=False, include_input=False):
        field = str(error["loc"][0]) if error["loc"] else ""
        why = _reason(error)
        if field not in settings_cls.model_fields:  # a check across several settings
            lines.append(why)
            continue
        variable = field.upper()
        why = why.removeprefix(f"{variable}: ")  # validators often name it already
        lines.append(f"{variable} ({_source(sources[field])}): {why}")
    return lines


def _reason(error: ErrorDetails) -> str:
    """The validator's own message (without pydantic's "Value error, " prefix)."""
    raised = (error.get("ctx") or {}).get("error")
    text = str(raised) if isinstance(raised, Exception) else str(error["msg"])
    return " ".join(text.split())


def _source(source: str) -> str:
    if source == ".env":
        return f"from {env_file_path()}"
    if source == "environment":
        return "from the environment"
    return "given as an argument"  # a default is never refused: the caller passed it
