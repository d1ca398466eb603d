"""ToolCallAssembler: tool-call deltas folded into whole calls, without a network."""

from __future__ import annotations

from core.models.base import ToolCall
from core.models.openai.stream import ToolCallAssembler


def test_argument_fragments_are_joined_by_index() -> None:
    """Interleaved deltas of two calls end up in the right call, in order."""
    asm = ToolCallAssembler()
    asm.add(0, id="a", name="add_item", arguments="")
    asm.add(1, id="b", name="remove_item", arguments='{"it')
    asm.add(0, arguments='{"item": ')
    asm.add(1, arguments='em": "tea"}')
    asm.add(0, arguments='"milk"}')
    assert asm.calls() == (
        ToolCall("a", "add_item", '{"item": "milk"}'),
        ToolCall("b", "remove_item", '{"item": "tea"}'),
    )


def test_name_repeated_on_every_delta_is_kept_once() -> None:
    """Servers that repeat the name and id on each delta still give one clean call."""
    asm = ToolCallAssembler()
    asm.add(0, id="a", name="add_item", arguments='{"item":')
    asm.add(0, id="a", name="add_item", arguments=' "x"}')
    assert asm.calls() == (ToolCall("a", "add_item", '{"item": "x"}'),)


def test_name_sent_in_fragments_is_joined() -> None:
    """A function name split over deltas is put back together."""
    asm = ToolCallAssembler()
    asm.add(0, id="a", name="add_", arguments="{}")
    asm.add(0, name="item")
    assert asm.calls()[0].name == "add_item"


def test_same_index_with_new_id_starts_a_new_call() -> None:
    """Servers that number every parallel call 0 still yield separate calls."""
    asm = ToolCallAssembler()
    asm.add(0, id="a", name="add_item", arguments='{"item": "x"}')
    asm.add(0, id="b", name="add_item", arguments='{"item": "y"}')
    assert [c.id for c in asm.calls()] == ["a", "b"]
    assert [c.arguments for c in asm.calls()] == ['{"item": "x"}', '{"item": "y"}']


def test_missing_id_and_empty_arguments_are_filled() -> None:
    """A call without id gets a stable generated one; no arguments means ``{}``."""
    asm = ToolCallAssembler()
    asm.add(None, name="get_summary")
    first = asm.calls()
    assert first[0].id.startswith("call_")
    assert first[0].arguments == "{}"
    assert asm.calls() == first


def test_no_deltas_means_no_calls() -> None:
    """A text-only stream has no tool calls."""
    assert ToolCallAssembler().calls() == ()
