"""Tools: schemas from type hints and docstrings, @tool, Toolkit, duplicate names."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from core.agent import Agent
from core.tools import Function, Toolkit, tool


def test_schema_comes_from_hints_and_docstring_args() -> None:
    """Types, defaults, required names and Args: descriptions make the JSON schema."""

    def add_task(
        session_state: dict[str, Any],
        title: str,
        priority: int = 1,
        tags: list[str] | None = None,
        kind: Literal["a", "b"] = "a",
    ) -> str:
        """Add a task to the board.

        Args:
            title: The task title,
                possibly long.
            priority (int): 1 is highest.

        Returns:
            A confirmation.
        """
        return title

    function = Function(add_task)
    assert function.description == "Add a task to the board."
    props = function.parameters["properties"]
    assert list(props) == ["title", "priority", "tags", "kind"]
    assert props["title"] == {"type": "string", "description": "The task title, possibly long."}
    assert props["priority"]["type"] == "integer" and props["priority"]["default"] == 1
    assert props["kind"]["enum"] == ["a", "b"]
    assert function.parameters["required"] == ["title"]


def test_tool_decorator_keeps_the_function_callable_and_can_rename() -> None:
    """@tool returns a Function that still calls like the original."""

    @tool(name="greet_user", description="Say hello.")
    def greet(name: str) -> str:
        return f"hi {name}"

    assert isinstance(greet, Function) and greet.name == "greet_user"
    assert greet("bo") == "hi bo"
    assert tool(greet.entrypoint).name == "greet"


def test_toolkit_registers_bound_methods_without_self() -> None:
    """Toolkit.register exposes methods; self and injected params stay out of the schema."""

    class Counter(Toolkit):
        def __init__(self, **kw: Any) -> None:
            super().__init__(name="counter", **kw)
            self.register(self.bump)

        def bump(self, agent: Any, by: int = 1) -> str:
            """Bump."""
            return str(by)

    agent = Agent(tools=[Counter()])
    assert list(agent.functions) == ["bump"]
    assert list(agent.functions["bump"].parameters["properties"]) == ["by"]


def test_two_tools_with_one_name_is_an_error() -> None:
    """Duplicate tool names are refused when the agent is built."""

    def same() -> str:
        """One."""
        return ""

    with pytest.raises(ValueError, match="two tools are named 'same'"):
        Agent(tools=[same, Function(same)])


def test_not_a_tool_is_a_clear_error() -> None:
    """A non-callable in tools= is refused with its repr."""
    with pytest.raises(TypeError, match="not a tool: 42"):
        Agent(tools=[42])
