"""Property tests: whatever the text, chunks fit, balance their fences and lose nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bots.chat.chunking import FENCE, plan_chunks

_word = st.text(alphabet="abcdefghij.!?`é漢😀", min_size=1, max_size=30)
_line = st.lists(_word, min_size=0, max_size=12).map(" ".join)
_fence = st.sampled_from(["```", "```python", "```js", "```" + "y" * 60])
_block = st.one_of(_line, _fence, _line.map(lambda s: "    " + s))
_text = st.lists(_block, min_size=0, max_size=60).flatmap(
    lambda lines: st.lists(
        st.sampled_from(["\n", "\n\n", " ", "\n \n"]), min_size=len(lines), max_size=len(lines)
    ).map(lambda seps: "".join(line + sep for line, sep in zip(lines, seps, strict=True)))
)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(_text, st.text(max_size=400)), limit=st.integers(20, 400))
def test_chunks_fit_balance_and_rebuild_the_text(text: str, limit: int) -> None:
    """No chunk exceeds the limit or is blank, fences balance, bodies rebuild the text."""
    chunks = plan_chunks(text, limit)
    if not text.strip():
        assert chunks == []
        return
    position = 0
    for index, chunk in enumerate(chunks):
        rendered = chunk.text
        assert rendered == chunk.reopen + chunk.body + chunk.close
        assert len(rendered) <= limit
        assert chunk.body.strip(), "blank chunk"
        assert rendered.count(FENCE) % 2 == 0, rendered
        # the added fence lines are exactly the ones needed
        assert bool(chunk.close) == ((chunk.reopen + chunk.body).count(FENCE) % 2 == 1)
        previous_open = index > 0 and bool(chunks[index - 1].close)
        assert bool(chunk.reopen) == previous_open
        if chunk.reopen:
            assert chunk.reopen.startswith(FENCE) and chunk.reopen.endswith("\n")
        assert chunk.close in ("", "\n" + FENCE)
        # each body is the text at its offset, separated from the last by whitespace only
        assert text[chunk.start : chunk.start + len(chunk.body)] == chunk.body
        assert chunk.start >= position and not text[position : chunk.start].strip()
        position = chunk.start + len(chunk.body)
    assert not text[position:].strip()
