"""Run every benchmark, one after another: ``python -m bench.run_all [--quick]``.

Each benchmark runs as its own ``python -m bench.<name>`` process, so one that fails
(say PostgreSQL is down) is reported and the others still run; the exit code is 1 when
any failed. ``--quick`` passes small sizes to each, for a CI smoke run of well under a
minute: the numbers it prints only show that the benchmarks work, not how fast.
``--only`` runs a subset by name.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

#: measures that need something from outside the repository (an Agno checkout, Agno
#: installed in bench/.venv-agno), so they are run by hand as bench/README.md says,
#: never by run_all
BY_HAND = frozenset({"agno_cookbook", "agno_tests", "turn_vs_agno"})

# name -> (full-size arguments, quick arguments); full size is each benchmark's default
BENCHMARKS: dict[str, tuple[list[str], list[str]]] = {
    "agent_overhead": (
        [],
        ["--runs", "5", "--big-runs", "2", "--items", "200", "--constructions", "5"],
    ),
    "turn_overhead": ([], ["--turns", "5", "--tasks", "500", "--no-agno"]),
    "history_turns": ([], ["--turns", "5"]),
    "redis_throughput": ([], ["--sessions", "20", "--turns", "2", "--concurrency", "5"]),
    "lease_waiters": ([], ["--waiters", "5,20", "--max-connections", "50"]),
    "catch_up": ([], ["--quick"]),
    "sql_lease": ([], ["--locks", "10", "--runs", "5", "--processes", "1", "2"]),
    "restart_check": ([], ["--turns", "50"]),
    "codec": ([], ["--quick"]),
    "open_run": ([], ["--quick"]),
    "snapshot_drain": ([], ["--sessions", "500"]),
    "schedules": ([], ["--schedules", "200", "--sessions", "20", "--polls", "5"]),
    "web_sessions_list": ([], ["--sessions", "2000", "--repeat", "3", "--no-plans"]),
    "schema_turns": ([], ["--tasks", "100", "--turns", "2"]),
    "encryption_turns": ([], ["--tasks", "200", "--turns", "3"]),
    "governance_turns": ([], ["--tasks", "100", "--turns", "2"]),
    "mcp_calls": ([], ["--runs", "5"]),
    "chat_latency": ([], ["--messages", "5"]),
    "teams_latency": ([], ["--messages", "5"]),
    "file_turns": ([], ["--turns", "3", "--size", "65536"]),
    "sql_data_column": ([], ["--saves", "5"]),
}


def command(name: str, quick: bool) -> list[str]:
    """The command line that runs one benchmark, at quick or full size."""
    full, small = BENCHMARKS[name]
    return [sys.executable, "-m", f"bench.{name}", *(small if quick else full)]


def run(names: list[str], quick: bool) -> list[str]:
    """Run the named benchmarks in order, printing their output; the names that failed."""
    failed = []
    for name in names:
        print(f"\n== bench.{name}{' (quick)' if quick else ''}", flush=True)
        started = time.perf_counter()
        code = subprocess.call(command(name, quick))
        elapsed = time.perf_counter() - started
        outcome = "ok" if code == 0 else f"FAILED (exit code {code})"
        print(f"== bench.{name}: {outcome} in {elapsed:.1f} s", flush=True)
        if code != 0:
            failed.append(name)
    return failed


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run the benchmarks, return the process exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run for CI")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=sorted(BENCHMARKS),
        metavar="NAME",
        help=f"run only these benchmarks ({', '.join(BENCHMARKS)})",
    )
    args = parser.parse_args(argv)
    failed = run(args.only or list(BENCHMARKS), args.quick)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
