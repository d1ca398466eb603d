"""Replies as a terminal shows them. Replies are Markdown (Slack and Discord render
it); a terminal shows the characters, so the markup that is only noise there goes:
the lines of a code fence (```` ``` ````, ```` ```json ````) are dropped and the code
between them is printed as written, so a state dump or a diff can be copied as is."""

from __future__ import annotations

import re

__all__ = ["for_terminal"]

#: an opening or closing fence line: three or more backticks, an optional language
_FENCE = re.compile(r"^ {0,3}`{3,}[\w+-]*\s*$")


def for_terminal(text: str) -> str:
    """``text`` with its code-fence lines removed and everything else kept."""
    if "```" not in text:
        return text
    return "\n".join(line for line in text.split("\n") if not _FENCE.match(line))
