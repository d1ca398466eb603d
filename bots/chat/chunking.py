"""Split a long reply into messages a platform accepts.

Each cut is as near the limit as it can be while falling on the strongest boundary
in reach: a paragraph break, else a line break, else the end of a sentence, else a
space. A boundary counts as "in reach" when it keeps the chunk at least half full, so
a short heading line never becomes a message of its own. Only a word longer than the
room left is cut mid-word.

Code fences follow the platforms' rule (Slack and Discord pair every three backticks
with the next, wherever they are): a fence open at a cut is closed at the end of
the chunk (``\\n```````) and reopened at the start of the next with the same language
tag (a bare fence when the tag would not leave room), and a fence the text itself
leaves open is closed too. The added characters count against the limit, so every
chunk renders on its own and none is longer than ``limit``.

Nothing is lost: each chunk's body is the text at one offset, and only whitespace
lies between one body and the next (the space or newlines at the cut; indentation
after a line break is kept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# each platform's limit is its traits' message_limit (bots.platforms)
MIN_LIMIT = 20

FENCE = "```"
_CLOSE = "\n" + FENCE
_TAG = re.compile(r"[A-Za-z0-9_+\-.#]*")
# strongest first; each pattern's match.start() (paragraph, line, word) or match.end()
# (sentence) is where the chunk ends
_PARAGRAPH = re.compile(r"\n[^\S\n]*\n")
_LINE = re.compile(r"\n")
_SENTENCE = re.compile(r"[.!?][\"')\]]*(?=\s)")
_WORD = re.compile(r"\s")
_NON_SPACE = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One message: ``body`` is ``text[start:start+len(body)]``, fences added around it."""

    reopen: str
    body: str
    close: str
    start: int

    @property
    def text(self) -> str:
        """What is sent."""
        return self.reopen + self.body + self.close


def _fence_after(text: str, tag: str | None) -> str | None:
    """The tag of the fence open after ``text`` (``tag`` if one was open before), or None."""
    at = 0
    while (found := text.find(FENCE, at)) >= 0:
        at = found + len(FENCE)
        if tag is None:
            match = _TAG.match(text, at)
            info_ends_line = match is not None and text[match.end() : match.end() + 1] in ("\n", "")
            tag = match.group() if match is not None and info_ends_line else ""
        else:
            tag = None
    return tag


def _reopen_line(tag: str | None, limit: int) -> str:
    """The line that reopens a fence, bare when the tag would crowd the chunk."""
    if tag is None:
        return ""
    line = f"{FENCE}{tag}\n"
    return line if len(line) <= limit // 2 else FENCE + "\n"


def _head_end(rest: str, room: int) -> int:
    """How much of ``rest`` (longer than ``room``) the next chunk's body takes."""
    window = rest[: room + 1]  # a separator right at the limit still counts
    latest = 0
    for pattern in (_PARAGRAPH, _LINE, _SENTENCE, _WORD):
        ends = [m.end() if pattern is _SENTENCE else m.start() for m in pattern.finditer(window)]
        ends = [e for e in ends if e <= room and rest[:e].strip()]
        if ends:
            if ends[-1] >= room // 2:
                return ends[-1]
            latest = max(latest, ends[-1])
    word = _NON_SPACE.search(rest, latest)
    if not latest or (word is not None and len(word.group()) > room):
        return room  # the word after the last boundary must be cut anyway: cut it here
    return latest


def _skip_separator(text: str, at: int, *, keep_indent: bool = True) -> int:
    """Past the whitespace at ``at``, keeping the indentation of the line that follows."""
    end = at
    while end < len(text) and text[end].isspace():
        end += 1
    last_newline = text.rfind("\n", at, end)
    if keep_indent and last_newline >= 0 and end < len(text):
        return last_newline + 1
    return end


def plan_chunks(text: str, limit: int) -> list[Chunk]:
    """The chunks of ``text`` with where each body comes from; [] for blank text."""
    if limit < MIN_LIMIT:
        raise ValueError(f"limit must leave room for code fences (at least {MIN_LIMIT})")
    chunks: list[Chunk] = []
    tag: str | None = None  # the fence open where the next chunk starts
    at = _skip_separator(text, 0)
    while text[at:].strip():
        reopen = _reopen_line(tag, limit)
        room = limit - len(reopen)
        rest = text[at:].rstrip()
        after = _fence_after(rest, tag)
        if len(rest) + (len(_CLOSE) if after is not None else 0) <= room:
            chunks.append(Chunk(reopen, rest, _CLOSE if after is not None else "", at))
            break
        end = _head_end(rest, room)
        after = _fence_after(rest[:end].rstrip(), tag)
        if after is not None and len(rest[:end].rstrip()) + len(_CLOSE) > room:
            end = _head_end(rest, room - len(_CLOSE))
            after = _fence_after(rest[:end].rstrip(), tag)
        body = rest[:end].rstrip()
        if not body.strip():  # indentation wider than a whole chunk: drop it
            at = _skip_separator(text, at, keep_indent=False)
            continue
        chunks.append(Chunk(reopen, body, _CLOSE if after is not None else "", at))
        tag = after
        # a cut drops the whitespace at it (none after a mid-word cut)
        at = _skip_separator(text, at + end)
    return chunks


def chunk_text(text: str, limit: int) -> list[str]:
    """Messages of at most ``limit`` characters, in order; [] for blank text."""
    return [chunk.text for chunk in plan_chunks(text, limit)]
