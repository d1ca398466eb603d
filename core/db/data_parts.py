"""A session's data text as its parts, so a store can append instead of rewriting it.

The data text (``SessionRecord.data``) is one JSON object: a *head* (the name, schema
version, summary and every other member), the run history and the audit trail. On a
long-lived session nearly all of it is runs and audit entries an earlier save already
wrote, and a save usually adds one run and one entry and drops the oldest. A save
that hands the store the parts (:class:`DataParts`) and how they follow from the data
stored at the version it expects (:class:`DataAppend`) lets a store that can append
(RedisDb: ``core/db/data_log.py``) send just the new lines; every other store
writes the whole text, which is always given too, so the parts never change *what*
is stored, only how much of it travels.

:func:`assemble` is the one place the text is made from its parts: the run history's
encoder (``core/run/history.py``) and the readers of an appended log both use it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AUDIT_SEPARATOR", "DataAppend", "DataParts", "assemble"]

#: a newline inside a JSON string: what separates the audit entries' escaped texts
AUDIT_SEPARATOR = "\\n"


@dataclass(frozen=True, slots=True)
class DataAppend:
    """How a save's data follows from the data stored at its expected version: drop the
    ``drop_runs`` oldest runs and ``drop_audit`` oldest entries, then add the last
    ``new_runs`` runs and ``new_audit`` entries of the parts; ``head_changed``: the head
    differs from the stored one."""

    drop_runs: int
    new_runs: int
    drop_audit: int
    new_audit: int
    head_changed: bool


@dataclass(frozen=True, slots=True)
class DataParts:
    """The parts :func:`assemble` makes a data text of: the head (a JSON object without
    runs and audit), each run's JSON text, each audit entry's text as escaped inside a
    JSON string. ``append``: how they follow from the stored data (None: they do not,
    or it is not known; the store writes them whole)."""

    head: str
    runs: tuple[str, ...]
    audit: tuple[str, ...]
    append: DataAppend | None = None

    @property
    def text(self) -> str:
        """The data text these parts make."""
        return assemble(self.head, self.runs, self.audit)


def assemble(
    head: str, runs: tuple[str, ...] | list[str], audit: tuple[str, ...] | list[str]
) -> str:
    """The data text: the head's members, then ``"runs"``, then ``"audit"`` (the entries
    joined by an escaped newline, one JSON string; left out when there are none)."""
    body = head[1:-1]
    text = f'{{{body}{"," if body else ""}"runs":[{",".join(runs)}]'
    if audit:
        text = f'{text},"audit":"{AUDIT_SEPARATOR.join(audit)}"'
    return text + "}"
