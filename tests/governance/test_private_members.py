"""Governance works on stores through their public primitives: ruff SLF001 is enforced
in core/governance (pyproject.toml); a store's own modules keep reaching theirs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ruff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    ruff = Path(sys.executable).with_name("ruff")
    return subprocess.run(
        [str(ruff), "check", "--no-cache", "--select", "SLF001", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_governance_touches_no_private_member() -> None:
    """Nothing in core/governance reads a store's private attributes today."""
    proc = _ruff("core/governance", cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_private_member_in_governance_fails_the_lint(tmp_path: Path) -> None:
    """``db._tables`` in core/governance is reported; the same line in core/db is not."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    line = "def tables(db: object) -> object:\n    return db._tables\n"
    for folder in ("core/governance", "core/db"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "peek.py").write_text(line, encoding="utf-8")
    proc = _ruff(".", cwd=tmp_path)
    reported = [row for row in proc.stdout.splitlines() if "peek.py" in row]
    assert proc.returncode != 0
    assert any("core/governance/peek.py" in row for row in reported), proc.stdout
    assert not any("core/db/peek.py" in row for row in reported), proc.stdout
