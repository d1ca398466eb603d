"""CEL strings as Condition evaluators, Router selectors and Loop end conditions (cel-python)."""

from __future__ import annotations

from typing import Any

import pytest

import core.workflow.cel as cel
from core.db.base import BaseDb
from core.workflow import (
    CEL_AVAILABLE,
    Condition,
    Loop,
    Router,
    Step,
    Workflow,
    validate_cel_expression,
)
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store


def bump(session_state: dict[str, Any]) -> str:
    """Count one more."""
    session_state["count"] = session_state.get("count", 0) + 1
    return f"count {session_state['count']}"


def shout(step_input: Any) -> str:
    """The input in capitals."""
    return str(step_input.input).upper()


def whisper(step_input: Any) -> str:
    """The input in small letters."""
    return str(step_input.input).lower()


def test_cel_is_available_in_the_dev_install() -> None:
    """The dev extra installs cel-python, so CEL runs in these tests."""
    assert CEL_AVAILABLE
    assert validate_cel_expression("input.contains('x')")
    assert not validate_cel_expression("input.contains(")


async def test_a_condition_reads_the_state_and_input(store: BaseDb) -> None:
    """A CEL evaluator sees session_state and input; the steps run only when it holds."""
    flow = Workflow(
        name="w",
        db=store,
        session_state={"count": 0},
        steps=[
            Step(name="bump", executor=bump),
            Condition("session_state.count >= 2 && input.startsWith('go')", [shout], name="c"),
        ],
    )
    first = await flow.arun("go now", session_id="s")
    assert first.content == "count 1"  # not met: the previous content passes through
    second = await flow.arun("go now", session_id="s")
    assert second.content == "GO NOW"
    assert await flow.aget_session_state(session_id="s") == {"count": 2}


async def test_a_router_picks_the_choice_the_expression_names() -> None:
    """A CEL selector returns a choice's name; it sees step_choices too."""
    flow = Workflow(
        name="w",
        steps=[
            Router(
                "input.size() > 3 ? step_choices[0] : 'whisper'",
                choices=[
                    Step(name="shout", executor=shout),
                    Step(name="whisper", executor=whisper),
                ],
            )
        ],
    )
    assert (await flow.arun("Hello")).content == "HELLO"
    assert (await flow.arun("HiA")).content == "hia"


async def test_a_loop_ends_when_its_expression_holds() -> None:
    """A CEL end condition sees current_iteration and the iteration's outputs."""
    flow = Workflow(
        name="w",
        steps=[
            Loop(
                steps=[Step(name="bump", executor=bump)],
                end_condition="step_outputs.bump == 'count 2' && current_iteration == 2",
                max_iterations=5,
            )
        ],
    )
    output = await flow.arun("go")
    assert output.content == "count 2"
    assert output.session_state == {"count": 2}


async def test_a_failing_expression_ends_the_run_and_keeps_the_state(store: BaseDb) -> None:
    """An expression that fails while running raises, naming it; earlier steps stay saved."""
    flow = Workflow(
        name="w",
        db=store,
        steps=[Step(name="bump", executor=bump), Condition("session_state.missing > 1", [shout])],
    )
    with pytest.raises(ValueError, match=r"session_state\.missing > 1"):
        await flow.arun("go", session_id="s")
    assert await flow.aget_session_state(session_id="s") == {"count": 1}


def test_an_expression_that_does_not_parse_is_refused_when_built() -> None:
    """A CEL string that does not parse is a clear error at construction."""
    with pytest.raises(ValueError, match=r"not a valid CEL expression"):
        Condition("input.contains(", [shout], name="bad")


def test_without_the_package_a_cel_string_says_to_install_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without cel-python, a CEL string is refused naming the extra to install."""
    monkeypatch.setattr(cel, "CEL_AVAILABLE", False)
    for build in (
        lambda: Condition("input == 'x'", [shout]),
        lambda: Router("'shout'", choices=[shout]),
        lambda: Loop(steps=[bump], end_condition="current_iteration > 1"),
    ):
        with pytest.raises(ImportError, match=r"statebot\[cel\]"):
            build()
    assert not cel.validate_cel_expression("input == 'x'")
