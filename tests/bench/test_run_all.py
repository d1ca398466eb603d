"""``make bench``: bench.run_all runs every benchmark, and ``--quick`` is a CI smoke run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.run_all import BENCHMARKS, BY_HAND, command

ROOT = Path(__file__).resolve().parents[2]
# modules in bench/ that are not benchmarks
HELPERS = {"__init__", "run_all", "workload", "local_redis", "cookbook_model", "cookbook_capture"}


def test_every_benchmark_module_is_listed() -> None:
    """Each bench/*.py benchmark is in run_all's table (or run by hand), and every entry is
    a module."""
    modules = {path.stem for path in (ROOT / "bench").glob("*.py")} - HELPERS - BY_HAND
    assert set(BENCHMARKS) == modules


def test_quick_mode_passes_small_sizes() -> None:
    """--quick adds each benchmark's small sizes; the full run uses its defaults."""
    assert command("history_turns", quick=True)[-2:] == ["--turns", "5"]
    assert command("history_turns", quick=False) == [sys.executable, "-m", "bench.history_turns"]


def test_makefile_bench_target_runs_run_all() -> None:
    """``make bench`` and ``make bench-quick`` call bench.run_all."""
    makefile = (ROOT / "Makefile").read_text()
    assert "$(BIN)/python -m bench.run_all\n" in makefile
    assert "$(BIN)/python -m bench.run_all --quick" in makefile


@pytest.mark.slow
@pytest.mark.timeout(600)  # the project's 120 s per test is too short for ~25 processes
def test_quick_run_of_every_benchmark_succeeds() -> None:
    """``python -m bench.run_all --quick`` runs all benchmarks against the real services."""
    result = subprocess.run(
        [sys.executable, "-m", "bench.run_all", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        # a hang guard: a quick run of every benchmark takes 1-2 min on a quiet machine,
        # over 2 beside the other tests on a slow shared one (2026-11-27: 2 min 10 s alone)
        timeout=540,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for name in BENCHMARKS:
        assert f"== bench.{name}: ok" in result.stdout
