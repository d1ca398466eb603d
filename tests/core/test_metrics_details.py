"""``RunMetrics.details``: the run's model calls per model (Agno's ``Metrics.details``)."""

from __future__ import annotations

from core.agent import Agent
from core.models.base import ModelResponse, Usage
from core.run.output import ModelMetrics, RunMetrics
from core.testing import ScriptedModel, tool_call


def test_details_sum_each_models_tokens() -> None:
    def look(city: str) -> str:
        """Look a city up."""
        return city

    call = ModelResponse(tool_calls=[tool_call("look", city="Oslo")], usage=Usage(10, 2))
    answer = ModelResponse(content="Oslo.", usage=Usage(15, 3))
    agent = Agent(model=ScriptedModel([call, answer], id="m-1"), tools=[look])

    metrics = agent.run("where?").metrics

    assert metrics.details == {
        "model": [
            ModelMetrics(id="m-1", provider="ScriptedModel", input_tokens=25, output_tokens=5)
        ]
    }
    assert metrics.details["model"][0].total_tokens == 30
    assert (metrics.model_calls, metrics.total_tokens) == (2, 30)


def test_no_model_call_no_details_and_sums_merge_by_model() -> None:
    one, two = RunMetrics(), RunMetrics()
    one.add_model_call("a", "P", Usage(1, 1))
    two.add_model_call("a", "P", Usage(2, 2))
    two.add_model_call("b", "P", Usage(5, 0))

    assert RunMetrics().details is None
    both = (one + two).details
    assert both == {"model": [ModelMetrics("a", "P", 3, 3), ModelMetrics("b", "P", 5, 0)]}
