"""Reply chunking under platform limits."""

from __future__ import annotations

import pytest

from bots.adapters.discord.traits import MESSAGE_LIMIT as DISCORD_LIMIT
from bots.adapters.slack.traits import MESSAGE_LIMIT as SLACK_LIMIT
from bots.chat.chunking import chunk_text


def test_short_text_is_one_chunk() -> None:
    """Text under the limit comes back unchanged."""
    assert chunk_text("hello", DISCORD_LIMIT) == ["hello"]


def test_blank_text_gives_no_chunks() -> None:
    """Nothing to send means no message."""
    assert chunk_text("\n\n", SLACK_LIMIT) == []


def test_splits_on_paragraphs_first() -> None:
    """A cut falls on a blank line when one is in reach."""
    text = "a" * 30 + "\n\n" + "b" * 30
    assert chunk_text(text, 50) == ["a" * 30, "b" * 30]


def test_splits_on_lines_then_words() -> None:
    """Without paragraphs, lines; without lines, words; words stay whole."""
    lines = "\n".join(f"line {i}" for i in range(40))
    for chunk in chunk_text(lines, 50):
        assert len(chunk) <= 50
        assert all(part.startswith("line ") for part in chunk.split("\n"))
    words = " ".join(f"word{i}" for i in range(100))
    chunks = chunk_text(words, 60)
    assert " ".join(chunks).split() == words.split()
    assert all(len(c) <= 60 for c in chunks)


def test_overlong_word_is_hard_cut() -> None:
    """A single word longer than the limit is cut, nothing is lost."""
    chunks = chunk_text("x" * 250, 100)
    assert "".join(chunks) == "x" * 250
    assert all(len(c) <= 100 for c in chunks)


@pytest.mark.parametrize("limit", [DISCORD_LIMIT, SLACK_LIMIT, 120])
def test_every_chunk_fits_and_text_survives(limit: int) -> None:
    """Chunks never exceed the limit and keep every word in order."""
    text = "\n\n".join(
        " ".join(f"w{p}_{i}" for i in range(p * 37 % 300 + 5)) for p in range(60)
    )
    chunks = chunk_text(text, limit)
    assert all(len(c) <= limit for c in chunks)
    assert " ".join(chunks).split() == text.split()


def test_code_fence_is_closed_and_reopened() -> None:
    """A fenced block split across chunks is closed and reopened with its language."""
    code = "\n".join(f"x{i} = {i}" for i in range(80))
    text = f"Here:\n\n```python\n{code}\n```\n\nDone."
    chunks = chunk_text(text, 200)
    assert len(chunks) > 2
    for chunk in chunks:
        assert len(chunk) <= 200
        assert chunk.count("```") % 2 == 0, chunk
    assert chunks[1].startswith("```python\n")
    body = [line for c in chunks for line in c.split("\n") if line.startswith("x")]
    assert body == code.split("\n")


def test_absurd_fence_line_still_terminates() -> None:
    """A fence line near the limit cannot make chunking loop forever."""
    text = "```" + "y" * 95 + "\n" + "z " * 200 + "\n```"
    chunks = chunk_text(text, 100)
    assert all(len(c) <= 100 for c in chunks)
    assert sum(c.count("z") for c in chunks) == 200


def test_tiny_limit_is_rejected() -> None:
    """A limit without room for fences is a programming error."""
    with pytest.raises(ValueError):
        chunk_text("abc", 5)


def test_a_late_space_beats_an_early_newline() -> None:
    """A short heading line does not become its own message: the cut is near the limit."""
    text = "Summary:\n" + " ".join(f"word{i}" for i in range(800))
    chunks = chunk_text(text, DISCORD_LIMIT)
    assert len(chunks[0]) > DISCORD_LIMIT - 20
    assert all(len(c) <= DISCORD_LIMIT for c in chunks)


def test_sentence_boundary_beats_a_word_boundary() -> None:
    """Without paragraphs or lines in reach, a cut falls after a sentence."""
    sentence = "This sentence has exactly eight words in it. "
    chunks = chunk_text(sentence * 20, 200)
    assert all(c.endswith(".") for c in chunks)


def test_long_code_line_is_cut_with_fences_kept() -> None:
    """A code line longer than the limit is cut inside the block, fences still balanced."""
    text = "```python\n" + "x" * 300 + "\n```"
    chunks = chunk_text(text, 100)
    for chunk in chunks:
        assert len(chunk) <= 100 and chunk.count("```") % 2 == 0, chunk
    assert "".join(c.replace("```python\n", "").replace("\n```", "") for c in chunks) == "x" * 300


def test_unclosed_fence_in_the_text_is_closed() -> None:
    """A reply that leaves a code block open still renders: the chunk closes it."""
    assert chunk_text("```\nprint(1)", 100) == ["```\nprint(1)\n```"]
