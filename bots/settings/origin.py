"""Where one setting's value came from, in words a message can carry: the
environment, or the ``.env`` file and the line that sets it."""

from __future__ import annotations

import os
import re

from bots.settings.sources import env_file_path

__all__ = ["setting_origin"]


def setting_origin(variable: str) -> str:
    """``the environment``, ``.env line 93`` (the file's path as given, the last line
    that sets ``variable``, as python-dotenv reads it) or ``the settings passed in``."""
    wanted = variable.lower()  # settings are read case-insensitively
    if any(name.lower() == wanted for name in os.environ):
        return "the environment"
    path = env_file_path()
    if path is not None and path.is_file():
        assignment = re.compile(rf"^\s*(?:export\s+)?{re.escape(variable)}\s*=", re.IGNORECASE)
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        found = [number for number, line in enumerate(lines, 1) if assignment.match(line)]
        if found:
            return f"{path} line {found[-1]}"
    return "the settings passed in"
