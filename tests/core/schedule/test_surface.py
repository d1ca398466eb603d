"""The public surface of core.schedule, and what it may import."""

from __future__ import annotations

import subprocess
import sys

import core.schedule


def test_every_exported_name_exists() -> None:
    """__all__ names exactly the public names, each importable."""
    assert sorted(core.schedule.__all__) == sorted(set(core.schedule.__all__))
    for name in core.schedule.__all__:
        assert getattr(core.schedule, name) is not None


def test_core_schedule_never_imports_the_chat_layer_or_toolkits() -> None:
    """Importing core.schedule loads nothing from bots/ or tools/."""
    code = (
        "import sys, core.schedule\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('bots', 'tools')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
