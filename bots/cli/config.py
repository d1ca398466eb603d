"""``statebot config``: the effective settings, and the table of every setting.

The table in docs/chat-setup.md is this module's ``settings_table()`` output, checked by
a test, so the docs list exactly the fields ``Settings`` has.
"""

from __future__ import annotations

from typing import Any

import click
from pydantic import SecretStr
from pydantic.fields import FieldInfo

from bots.app.cli_format import HELP_OPTIONS
from bots.settings import Settings, setting_sources
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


def settings_table() -> str:
    """One Markdown row per setting: variable, default, meaning."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        meaning = (field.description or "").replace("|", "\\|")
        rows.append(f"| `{name.upper()}` | {_default(field)} | {meaning} |")
    return "\n".join(rows)


def effective_settings(settings: Settings) -> list[tuple[str, str, str]]:
    """(variable, value with secrets masked, source) for every setting."""
    sources = setting_sources()
    lines = []
    for name in Settings.model_fields:
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
    try:
        settings = Settings()
    except ValueError as exc:  # pydantic's ValidationError names the variable and why
        raise click.ClickException(str(exc)) from exc
    rows = effective_settings(settings)
    width = max(len(name) for name, _, _ in rows)
    value_width = min(40, max(len(value) for _, value, _ in rows))
    for name, value, source in rows:
        click.echo(f"{name:<{width}}  {value:<{value_width}}  ({source})")
