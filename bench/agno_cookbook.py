"""Agno's cookbook examples, run unmodified on Agno and on ``core``: same final state?

Agno's files never enter this project: the script takes the path of an Agno checkout
and copies each example of a fixed selection (:data:`SELECTION`, the set we keep:
state, sessions, history, teams, workflows, hooks and tools that need nothing but an
OpenAI-compatible model) into a folder of its own, once per side. For ``core`` only
the import lines change (``agno`` becomes ``core``). Both sides talk to one
:class:`core.testing.FakeOpenAIServer` playing :func:`bench.cookbook_model.reply`, a
deterministic policy that calls the tools a request offers with arguments from the
user's words, so the examples change their state the same way on both sides. At exit
a start-up hook (:mod:`bench.cookbook_capture`) writes every session state the
program's stores hold; the two captures are compared after ids and times are masked.

    .venv/bin/python -m bench.agno_cookbook --agno /path/to/agno \\
        --agno-python /path/to/agno-venv/bin/python

``--agno`` is the checkout's root (``cookbook/`` and ``libs/agno`` under it); the Agno
interpreter must have Agno installed (``pip install -e libs/agno openai sqlalchemy
aiosqlite``). ``--only NAME`` runs the examples whose path contains NAME.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.cookbook_capture import is_empty, normalise, sitecustomize
from bench.cookbook_model import reply
from core.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]

#: the set we keep: 60 examples under Agno's cookbook/
SELECTION = (
    "02_agents/05_state_and_session/agentic_session_state.py",
    "02_agents/05_state_and_session/dynamic_session_state.py",
    "02_agents/05_state_and_session/last_n_session_messages.py",
    "02_agents/05_state_and_session/search_session_history.py",
    "02_agents/05_state_and_session/session_options.py",
    "02_agents/05_state_and_session/session_state_advanced.py",
    "02_agents/05_state_and_session/session_state_basic.py",
    "02_agents/05_state_and_session/session_state_events.py",
    "02_agents/05_state_and_session/session_state_manual_update.py",
    "02_agents/05_state_and_session/session_state_multiple_users.py",
    "03_teams/07_session/custom_session_summary.py",
    "03_teams/07_session/nested_team_deep_history.py",
    "03_teams/07_session/nested_team_history.py",
    "03_teams/07_session/nested_team_history_to_members.py",
    "03_teams/07_session/search_session_history.py",
    "03_teams/07_session/share_session_with_agent.py",
    "03_teams/21_state/agentic_session_state.py",
    "03_teams/21_state/change_state_on_run.py",
    "03_teams/21_state/nested_shared_state.py",
    "03_teams/21_state/overwrite_stored_session_state.py",
    "04_workflows/06_advanced_concepts/run_params/workflow_all_params.py",
    "04_workflows/07_cel_expressions/router/cel_session_state_route.py",
    "04_workflows/07_cel_expressions/condition/cel_session_state.py",
    "03_teams/03_tools/member_tool_hooks.py",
    "04_workflows/06_advanced_concepts/session_state/job_application_tracker.py",
    "04_workflows/06_advanced_concepts/session_state/state_in_condition.py",
    "04_workflows/06_advanced_concepts/session_state/state_in_router.py",
    "04_workflows/06_advanced_concepts/session_state/state_with_agent.py",
    "04_workflows/06_advanced_concepts/session_state/state_with_team.py",
    "04_workflows/06_advanced_concepts/run_control/deep_copy.py",
    "04_workflows/06_advanced_concepts/run_control/executor_events.py",
    "04_workflows/06_advanced_concepts/run_control/workflow_serialization.py",
    "02_agents/04_tools/01_callable_tools.py",
    "02_agents/04_tools/02_session_state_tools.py",
    "02_agents/04_tools/03_team_callable_members.py",
    "02_agents/04_tools/04_tools_with_literal_type_param.py",
    "02_agents/04_tools/tool_choice.py",
    "02_agents/09_hooks/message_history_hooks.py",
    "02_agents/09_hooks/post_hook_output.py",
    "02_agents/09_hooks/pre_hook_input.py",
    "02_agents/09_hooks/session_state_hooks.py",
    "02_agents/03_context_management/datetime_format.py",
    "02_agents/03_context_management/few_shot_learning.py",
    "02_agents/03_context_management/filter_tool_calls_from_history.py",
    "02_agents/03_context_management/instructions.py",
    "02_agents/03_context_management/instructions_with_state.py",
    "02_agents/03_context_management/introduction_message.py",
    "02_agents/03_context_management/system_message.py",
    "03_teams/13_hooks/post_hook_output.py",
    "03_teams/13_hooks/pre_hook_input.py",
    "02_agents/15_dependencies/dependencies_in_tools.py",
    "02_agents/15_dependencies/dynamic_tools.py",
    "03_teams/17_dependencies/dependencies_in_context.py",
    "03_teams/17_dependencies/dependencies_in_tools.py",
    "03_teams/17_dependencies/dependencies_to_members.py",
    "03_teams/14_run_control/model_inheritance.py",
    "02_agents/14_advanced/agent_serialization.py",
    "02_agents/14_advanced/streaming_metrics.py",
    "02_agents/10_human_in_the_loop/external_tool_execution.py",
    "02_agents/10_human_in_the_loop/mixed_external_and_regular_tools.py",
)

_IMPORT = re.compile(r"^(\s*)(from|import) agno(\.|\s)", re.MULTILINE)


def port(text: str, package: str) -> str:
    """The example's text with ``agno`` replaced by ``package`` in import lines only."""
    if package == "agno":
        return text
    return _IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)} {package}{m.group(3)}", text)


@dataclass
class SideResult:
    """One example on one side: did it finish, and what state it left."""

    completed: bool
    detail: str  # the last line of stderr when it failed, or ""
    capture: dict[str, Any]
    seconds: float


@dataclass
class ExampleResult:
    """One example on both sides."""

    example: str
    agno: SideResult
    core: SideResult

    @property
    def same_state(self) -> bool:
        both = self.agno.completed and self.core.completed
        return both and normalise(self.agno.capture) == normalise(self.core.capture)


def _last_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"^[A-Za-z_.]+(Error|Exception)\b", line)]
    return (errors[-1] if errors else lines[-1] if lines else "")[:240]


def run_side(
    example: str,
    source: Path,
    package: str,
    python: str,
    work: Path,
    env: dict[str, str],
    timeout: float,
) -> SideResult:
    """Run one ported example in a folder of its own and read its capture."""
    folder = work / package / example.removesuffix(".py").replace("/", "__")
    shutil.rmtree(folder, ignore_errors=True)  # a kept folder's store from an earlier run
    hook = folder / "_hook"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(sitecustomize(package))
    script = folder / Path(example).name
    script.write_text(port(source.read_text(), package))
    out = folder / "_state.json"
    paths = [str(hook)] + ([str(ROOT)] if package == "core" else [])
    side_env = {**env, "COOKBOOK_STATE_OUT": str(out), "PYTHONPATH": os.pathsep.join(paths)}
    started = time.monotonic()
    try:
        done = subprocess.run(
            [python, script.name],
            cwd=folder,
            env=side_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        (folder / "_stdout.txt").write_text(done.stdout)
        (folder / "_stderr.txt").write_text(done.stderr)
        completed = done.returncode == 0
        detail = "" if completed else _last_error(done.stderr) or f"exit {done.returncode}"
    except subprocess.TimeoutExpired:
        completed, detail = False, f"timed out after {timeout:g} s"
    seconds = time.monotonic() - started
    capture = json.loads(out.read_text()) if out.exists() else {}
    return SideResult(completed, detail, capture, seconds)


def run(
    agno_root: Path,
    agno_python: str,
    core_python: str,
    only: str | None,
    jobs: int,
    timeout: float,
    keep: Path | None,
) -> list[ExampleResult]:
    """Every selected example on both sides; results in selection order."""
    work = keep or Path(tempfile.mkdtemp(prefix="agno-cookbook-"))
    examples = [e for e in SELECTION if only is None or only in e]
    with FakeOpenAIServer([reply] * 1_000_000) as fake:
        env = {
            **os.environ,
            "OPENAI_BASE_URL": fake.base_url,
            "OPENAI_API_KEY": "sk-fake",
            "AGNO_TELEMETRY": "false",
            "PYTHONHASHSEED": "0",
        }
        env.pop("PYTHONPATH", None)

        def both(example: str) -> ExampleResult:
            source = agno_root / "cookbook" / example
            sides = {
                package: run_side(example, source, package, python, work, env, timeout)
                for package, python in (("agno", agno_python), ("core", core_python))
            }
            return ExampleResult(example, sides["agno"], sides["core"])

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(both, examples))


def report(results: list[ExampleResult]) -> dict[str, Any]:
    """Counts, and per example what differs."""
    rows = []
    for r in results:
        rows.append(
            {
                "example": r.example,
                "agno": r.agno.completed,
                "core": r.core.completed,
                "same_state": r.same_state,
                "state_empty_on_agno": is_empty(r.agno.capture),
                "agno_error": r.agno.detail,
                "core_error": r.core.detail,
                "agno_state": normalise(r.agno.capture),
                "core_state": normalise(r.core.capture),
                "seconds": [round(r.agno.seconds, 1), round(r.core.seconds, 1)],
            }
        )
    return {
        "total": len(results),
        "agno_completed": sum(r.agno.completed for r in results),
        "core_completed": sum(r.core.completed for r in results),
        "same_state": sum(r.same_state for r in results),
        "examples": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agno", type=Path, required=True, help="an Agno checkout's root")
    parser.add_argument("--agno-python", required=True, help="an interpreter with Agno")
    parser.add_argument("--core-python", default=sys.executable, help="one with core")
    parser.add_argument("--only", help="run only examples whose path contains this")
    parser.add_argument("--jobs", type=int, default=2, help="examples run at once")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per run")
    parser.add_argument("--keep", type=Path, help="keep the runs' folders here")
    parser.add_argument("--json", type=Path, help="write the full report here")
    args = parser.parse_args(argv)
    results = run(
        args.agno,
        args.agno_python,
        args.core_python,
        args.only,
        args.jobs,
        args.timeout,
        args.keep,
    )
    summary = report(results)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    for row in summary["examples"]:
        mark = "same" if row["same_state"] else "DIFF"
        print(
            f"{mark} agno={'ok' if row['agno'] else 'FAIL'} core={'ok' if row['core'] else 'FAIL'}"
            f" {row['example']}"
            + (f"\n     agno: {row['agno_error']}" if row["agno_error"] else "")
            + (f"\n     core: {row['core_error']}" if row["core_error"] else "")
        )
    n = summary["total"]
    print(
        f"Agno completes {summary['agno_completed']}/{n}, core completes "
        f"{summary['core_completed']}/{n}, same final state {summary['same_state']}/{n}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
