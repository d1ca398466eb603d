"""The ``statebot`` command (entry point ``bots.cli:main``): serving processes, the
snapshotter, ``state …`` maintenance, ``config`` and the web console.
"""

from __future__ import annotations

from bots.cli.main import main

__all__ = ["main"]
