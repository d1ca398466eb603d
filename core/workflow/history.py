"""Earlier runs of a workflow's session, as Agno hands them to steps.

``Workflow(add_workflow_history_to_steps=True)`` (or a step's own
``add_workflow_history=``) puts the session's earlier *completed* runs — each one's
input and final output — before an agent or team step's message, in Agno's
``<workflow_history_context>`` block; function steps read the same pairs with
``step_input.get_workflow_history()``. The pairs come from the session's run history
(:mod:`core.run.history`), which is already bounded (``StateLimits.max_runs`` runs
in ``run_bytes``), so a long-lived session never grows a step's message without limit.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.run.history import SessionData

#: (input, output) of one earlier run
HistoryPair = tuple[str, str]


def workflow_history(data: SessionData) -> list[HistoryPair]:
    """Every completed run of the session, oldest first, as (input, output) texts."""
    return [(run.input or "", run.output or "") for run in data.completed()]


def last_runs(pairs: Sequence[HistoryPair], num_runs: int | None) -> list[HistoryPair]:
    """The ``num_runs`` most recent pairs (all of them for None, none for 0 or less)."""
    if num_runs is None:
        return list(pairs)
    return list(pairs[-num_runs:]) if num_runs > 0 else []


def history_context(pairs: Sequence[HistoryPair], num_runs: int | None) -> str | None:
    """Agno's ``<workflow_history_context>`` block for the last runs (None: no runs)."""
    chosen = last_runs(pairs, num_runs)
    if not chosen:
        return None
    lines = ["<workflow_history_context>"]
    for number, (asked, answered) in enumerate(chosen, 1):
        lines.append(f"[Workflow Run-{number}]")
        if asked:
            lines.append(f"User input: {asked}")
        if answered:
            lines.append(f"Workflow output: {answered}")
        lines.append("")
    lines.extend(["</workflow_history_context>", ""])
    return "\n".join(lines)
