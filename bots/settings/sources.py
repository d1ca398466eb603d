"""Where settings come from: the ``.env`` file chosen now, and the list and pair forms
an environment variable may take."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["ENV_FILE_VARIABLE", "env_file_path", "split_list", "split_pairs"]

#: names the .env file to read instead of ./.env (empty: read none)
ENV_FILE_VARIABLE = "STATEBOT_ENV_FILE"


def env_file_path() -> Path | None:
    """The .env file settings read now: ``STATEBOT_ENV_FILE``, else ``./.env``."""
    named = os.environ.get(ENV_FILE_VARIABLE)
    if named is None:
        return Path(".env")
    return Path(named) if named.strip() else None


def split_list(value: Any) -> Any:
    """Accept ``"a, b,c"`` as well as a real list."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def split_pairs(value: Any, what: str) -> Any:
    """Accept ``"k1=v1,k2=v2"`` as well as a real mapping."""
    if not isinstance(value, str):
        return value
    pairs: dict[str, str] = {}
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, val = part.partition("=")
        if not sep or not key.strip() or not val.strip():
            raise ValueError(f"{what}: expected KEY=VALUE pairs separated by commas, got {part!r}")
        pairs[key.strip()] = val.strip()
    return pairs


def blank_is_unset(value: Any) -> Any:
    """The one rule for ``VAR=``: compose files often pass an empty value for "unset"."""
    return None if isinstance(value, str) and not value.strip() else value
