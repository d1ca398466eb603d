"""``statebot config``: the effective settings, and the table of every setting.

Every setting is the neutral ``Settings`` and each registered platform's own settings
class (``Adapter.settings_class``), in the registry's order. The table in
docs/chat-setup.md is this module's ``settings_table()`` output, checked by a test, so
the docs list exactly the fields they have.
"""

from __future__ import annotations

from typing import Any

import click
from pydantic import SecretStr
from pydantic.fields import FieldInfo

from bots.adapters import registry
from bots.app.cli_format import HELP_OPTIONS
from bots.settings import EnvSettings, Settings, setting_sources
from core.redaction import redact_text


def _shown(value: Any) -> str:
    """A value as the environment would spell it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, frozenset | set | list | tuple):
        return ",".join(sorted(str(v) for v in value))
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in sorted(value.items()))
    return str(value)


def _default(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if value is None or (not isinstance(value, bool | int | float) and not value):
        return "—"  # unset, or an empty list/mapping
    return f"`{_shown(value)}`"


def settings_classes() -> tuple[type[EnvSettings], ...]:
    """``Settings``, then every registered platform's own settings class."""
    platforms = (adapter.settings_class for adapter in registry.adapters())
    return (Settings, *(found for found in platforms if found is not None))


def settings_table() -> str:
    """One Markdown row per setting: variable, default, meaning."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for settings_cls in settings_classes():
        for name, field in settings_cls.model_fields.items():
            meaning = (field.description or "").replace("|", "\\|")
            rows.append(f"| `{name.upper()}` | {_default(field)} | {meaning} |")
    return "\n".join(rows)


def effective_settings(*instances: EnvSettings) -> list[tuple[str, str, str]]:
    """(variable, value with secrets masked, source) for every setting of ``instances``."""
    lines = []
    for settings in instances:
        lines.extend(_effective(settings))
    return lines


def _effective(settings: EnvSettings) -> list[tuple[str, str, str]]:
    sources = setting_sources(type(settings))
    lines = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            shown = "set (hidden)"
        elif value is None:
            shown = "not set"
        else:
            shown = redact_text(_shown(value))  # URLs may carry a password
        lines.append((name.upper(), shown, sources[name]))
    return lines


@click.command("config", context_settings=HELP_OPTIONS)
@click.option(
    "--markdown",
    is_flag=True,
    help="Print the Markdown table of every setting (as in docs/chat-setup.md) instead.",
)
def config(markdown: bool) -> None:
    """Show the effective settings, secrets masked, and where each value came from."""
    if markdown:
        click.echo(settings_table())
        return
    # a refused value is reported by bots.cli.errors: one line naming it and its source
    instances = [settings_cls() for settings_cls in settings_classes()]
    rows = effective_settings(*instances)
    width = max(len(name) for name, _, _ in rows)
    value_width = min(40, max(len(value) for _, value, _ in rows))
    for name, value, source in rows:
        click.echo(f"{name:<{width}}  {value:<{value_width}}  ({source})")
