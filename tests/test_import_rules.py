"""The layering rule, enforced by ruff (TID251 in pyproject.toml): core imports no bots, tools."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    ruff = Path(sys.executable).with_name("ruff")
    return subprocess.run(
        [str(ruff), "check", "--no-cache", "--select", "TID251", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_the_project_keeps_the_rule() -> None:
    """Nothing in core imports bots or tools today."""
    proc = _ruff("core", cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_import_of_bots_or_tools_in_core_fails_the_lint(tmp_path: Path) -> None:
    """Module-level, from-, submodule and function-level imports in core are all reported."""
    project = _project(
        tmp_path,
        {
            "core/bad.py": (
                "import bots\n"
                "from bots.chat.service import ChatService\n"
                "from tools.taskboard import toolkit\n"
                "\n\n"
                "def later() -> None:\n"
                "    import tools.shopping\n"
            ),
        },
    )
    proc = _ruff(".", cwd=project)
    assert proc.returncode != 0
    reported = [line for line in proc.stdout.splitlines() if "TID251" in line]
    assert len(reported) == 4, proc.stdout
    assert "core never imports bots" in proc.stdout
    assert "core never imports tools" in proc.stdout


def test_the_rule_binds_core_only(tmp_path: Path) -> None:
    """bots, tools and tests may import bots and tools; core may import core."""
    project = _project(
        tmp_path,
        {
            "bots/ok.py": "import tools\nfrom bots import service\n",
            "tools/ok.py": "from tools.taskboard import toolkit\n",
            "tests/ok.py": "import bots\nimport tools\n",
            "core/ok.py": "from core.agent import Agent\n",
        },
    )
    proc = _ruff(".", cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
