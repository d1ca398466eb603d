"""Run history: what each run of a session asked and answered, stored with the session.

A session's *data* (``SessionRecord.data``, one JSON object as text) holds its runs,
oldest first, its name and its audit trail (:mod:`core.state.audit`, newest last). It
is written in the same atomic save as the state, snapshotted, exported and deleted
with it. It is bounded: at most ``StateLimits.max_runs`` runs in ``run_bytes`` of JSON,
the oldest runs dropped first (each run's messages, ``RunRecord.transcript``, go
before any run: see :mod:`core.run.transcript`), and every tool result is cut to
:data:`RESULT_CHARS` characters; the audit trail has its own bound (``max_audit_entries`` in
``audit_bytes``), so a long run history never pushes out audit entries or the reverse,
and a long-lived chat thread never grows without limit.

The session's summary (``enable_session_summaries``, :mod:`core.session.summary`) is
kept in ``summary``: ``{"summary", "topics", "updated_at", "users"}`` (``users``: whose
runs it was made from, so erasure finds it), bounded by :func:`bounded_summary`.

A paused run (a tool that ``requires_confirmation``) keeps what it needs to resume in
``paused``: the run's messages so far and the pending tool calls. ``continue_run``
finds it here, in whatever process it runs.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from core.db.data_parts import assemble
from core.db.limits import StateLimits
from core.models.base import Message
from core.run.media_refs import attached_note as attached_note
from core.run.pieces import DataPieces, PieceCache, bounded_audit, dumps
from core.run.summary_bounds import SUMMARY_CHARS as SUMMARY_CHARS
from core.run.summary_bounds import bounded_summary as bounded_summary
from core.run.transcript import RESULT_CHARS as RESULT_CHARS
from core.run.transcript import cut as _cut
from core.run.transcript import message_from_dict as message_from_dict
from core.run.transcript import message_to_dict as message_to_dict

RunStatus = Literal["completed", "paused", "error", "cancelled", "pending", "running"]


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call of a stored run."""

    tool_call_id: str
    name: str
    arguments: Mapping[str, Any]
    result: str | None = None
    error: bool = False


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run of a session, as stored."""

    run_id: str
    status: RunStatus
    input: str
    output: str | None = None
    user_id: str | None = None
    owner_id: str | None = None
    tool_calls: tuple[ToolCallRecord, ...] = ()
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    #: resume data of a paused run: {"messages": [...], "pending": [...], ...}
    paused: Mapping[str, Any] | None = None
    #: the run's own messages, bounded (core.run.transcript)
    transcript: tuple[Mapping[str, Any], ...] = ()
    #: the run's counts (RunMetrics' fields), None when not known
    metrics: Mapping[str, float] | None = None
    #: the team that ran it (a team's run: its own id), and the run it ran inside
    team_id: str | None = None
    parent_run_id: str | None = None
    #: what the run was given besides its text: one reference per image or file
    #: (kind, name, type, size, id; :meth:`core.media.Image.reference`), never the bytes
    media: tuple[Mapping[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        data: dict[str, Any] = {
            "run_id": self.run_id,
            "status": self.status,
            "input": self.input,
            "output": self.output,
            "user_id": self.user_id,
            "owner_id": self.owner_id,
            "tool_calls": [
                {
                    "id": c.tool_call_id,
                    "name": c.name,
                    "arguments": dict(c.arguments),
                    "result": c.result,
                    "error": c.error,
                }
                for c in self.tool_calls
            ],
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
        if self.paused is not None:
            data["paused"] = dict(self.paused)
        if self.transcript:
            data["messages"] = [dict(m) for m in self.transcript]
        if self.metrics is not None:
            data["metrics"] = dict(self.metrics)
        if self.media:
            data["media"] = [dict(m) for m in self.media]
        for name in ("team_id", "parent_run_id"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        """The record from :meth:`to_dict` output."""
        return cls(
            run_id=str(data["run_id"]),
            status=data.get("status", "completed"),
            input=str(data.get("input", "")),
            output=data.get("output"),
            user_id=data.get("user_id"),
            owner_id=data.get("owner_id"),
            tool_calls=tuple(
                ToolCallRecord(
                    str(c.get("id", "")),
                    str(c.get("name", "")),
                    dict(c.get("arguments") or {}),
                    c.get("result"),
                    bool(c.get("error", False)),
                )
                for c in data.get("tool_calls", ())
            ),
            created_at=float(data.get("created_at", 0.0)),
            updated_at=float(data.get("updated_at", 0.0)),
            paused=data.get("paused"),
            transcript=tuple(data.get("messages") or ()),
            metrics=data.get("metrics"),
            team_id=data.get("team_id"),
            parent_run_id=data.get("parent_run_id"),
            media=tuple(dict(m) for m in data.get("media") or ()),
        )

    def messages(self, *, name_user: bool = False) -> list[Message]:
        """The turns this run adds to a later run's context: the question and the answer.

        ``name_user``: prefix the question with who asked (a thread shared by several
        users), so the model can tell people apart.
        """
        out: list[Message] = []
        if self.input or self.media:  # an introduction run asked nothing: its answer only
            asker = f"{self.user_id}: " if name_user and self.user_id else ""
            question = f"{asker}{self.input}"
            if self.media:  # the model is told what was attached then; the bytes are gone
                question = f"{question}\n{attached_note(self.media)}"
            out.append(Message("user", question, from_history=True))
        if self.output:
            out.append(Message("assistant", self.output, from_history=True))
        return out


@dataclass(slots=True)
class SessionData:
    """A session's data: its runs (oldest first), its name, its state's schema version,
    and its audit trail (oldest first; see core.state.audit).

    The audit trail is stored as one JSON string of JSON Lines (an entry's compact JSON
    per line), so a save appends and bounds it without decoding any entry: a turn costs
    the same with 200 entries as with none. :meth:`audit_entries` decodes them.
    """

    runs: list[RunRecord] = field(default_factory=list)
    name: str | None = None
    #: the version of the owner's state schema the stored state is in (None: no schema)
    schema_version: int | None = None
    #: top-level keys the owner's schema marks as counters that only grow (a restore keeps them)
    counters: list[str] = field(default_factory=list)
    #: audit entries as compact JSON texts, oldest first
    audit: list[str] = field(default_factory=list)
    #: the session's summary as plain JSON data (None: none written yet)
    summary: dict[str, Any] | None = None
    #: the rest of Agno's ``session_data`` (keys a program set besides state and name)
    extra: dict[str, Any] = field(default_factory=dict)
    #: Agno's session ``metadata`` (None: none set)
    metadata: dict[str, Any] | None = None
    #: the encoded runs and entries (core.run.pieces), and what the last encode made
    _cache: PieceCache[RunRecord] = field(
        default_factory=PieceCache, init=False, repr=False, compare=False
    )
    _encoded: DataPieces[RunRecord] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @classmethod
    def decode(cls, text: str) -> SessionData:
        """From the stored JSON text ("" for none)."""
        if not text:
            return cls()
        data = json.loads(text)
        return cls(
            runs=[RunRecord.from_dict(r) for r in data.get("runs", ())],
            name=data.get("name"),
            schema_version=data.get("schema_version"),
            counters=[str(k) for k in data.get("counters") or ()],
            audit=audit_lines(data.get("audit")),
            summary=bounded_summary(data.get("summary")),
            extra=dict(data.get("extra") or {}),
            metadata=data.get("metadata"),
        )

    def add_audit(self, entry: Mapping[str, Any]) -> str:
        """Append an audit entry (plain JSON data); its stored text."""
        text = dumps(entry)
        self.audit.append(text)
        return text

    def audit_entries(self) -> list[dict[str, Any]]:
        """The audit entries decoded, oldest first."""
        return [json.loads(line) for line in self.audit]

    @classmethod
    def from_pieces(cls, pieces: DataPieces[RunRecord]) -> SessionData:
        """The data a previous encode made (:meth:`pieces`), without decoding its text:
        the same as ``decode(pieces.text)``. Run records are shared (they are frozen); a
        paused run is decoded from its text, so what resumes it reads what is stored."""
        data = cls.decode(pieces.head)
        data.runs = [
            p[0] if p[0].paused is None else RunRecord.from_dict(json.loads(p[1]))
            for p in pieces.runs
        ]
        data.audit = list(pieces.audit)
        data._cache.fill(pieces)
        data._encoded = pieces
        return data

    @classmethod
    def of(cls, text: str, pieces: DataPieces[RunRecord] | None) -> SessionData:
        """The data stored as ``text``: from ``pieces`` when they made it, else decoded."""
        if pieces is not None and pieces.text == text:
            return cls.from_pieces(pieces)
        return cls.decode(text)

    def pieces(self, text: str) -> DataPieces[RunRecord] | None:
        """What ``text``, this data's last :meth:`encode`, was made of (None: another text)."""
        encoded = self._encoded
        return encoded if encoded is not None and encoded.text is text else None

    def encode(self, limits: StateLimits) -> str:
        """JSON text within ``limits``: runs and audit entries each within their own
        share. Over the runs' share, the runs' transcripts go first (oldest first; a
        run without one still shows its question and answer), then the oldest runs.

        Runs and entries an earlier encode already made are not encoded again
        (:mod:`core.run.pieces`); the text is the same either way."""
        cache = self._cache
        runs = (
            [
                cache.known(r) or cache.run(_short(r), _run_text)
                for r in self.runs[-limits.max_runs :]
            ]
            if limits.max_runs > 0
            else []
        )
        head: dict[str, Any] = {}
        if self.schema_version is not None:
            head["schema_version"] = self.schema_version
        if self.counters:
            head["counters"] = self.counters
        if self.extra:
            head["extra"] = self.extra
        if self.metadata is not None:
            head["metadata"] = self.metadata
        rest = dumps(head)[1:-1]
        rest = f",{rest}" if rest else ""
        name = dumps(self.name)
        # the summary is bounded on its own (bounded_summary): it takes no room from runs
        room = limits.run_bytes - len(f'{{"name":{name},"runs":[]{rest}}}'.encode())
        if self.summary is not None:
            rest = f'{rest},"summary":{dumps(self.summary)}'
        runs = _within(runs, room, cache)
        self.runs = [p[0] for p in runs]
        # the member is the escaped entries, "\\n" (2 bytes) between them, in quotes
        room = limits.audit_bytes - len(',"audit":')
        audit = bounded_audit(self.audit, self._encoded, limits.max_audit_entries, room)
        self.audit = list(audit[0])
        members = f'{{"name":{name}{rest}}}'
        text = assemble(members, [p[1] for p in runs], audit[1])
        cache.keep(runs)
        self._encoded = DataPieces(text, members, tuple(runs), *audit)
        return text

    def upsert(self, run: RunRecord) -> None:
        """Add a run, or replace the stored run with the same id (a resumed pause)."""
        for i, known in enumerate(self.runs):
            if known.run_id == run.run_id:
                self.runs[i] = run
                return
        self.runs.append(run)

    def find(self, run_id: str) -> RunRecord | None:
        """The run with this id, if it is still in the history."""
        return next((r for r in self.runs if r.run_id == run_id), None)

    def completed(self, last: int | None = None) -> list[RunRecord]:
        """Completed runs, oldest first; only the ``last`` ones when given."""
        done = [r for r in self.runs if r.status == "completed"]
        return done if last is None else done[-last:] if last > 0 else []

    def shared(self) -> bool:
        """True when more than one user ran in this session (a shared thread)."""
        return len({r.user_id for r in self.runs if r.user_id}) > 1


def history_messages(
    data: SessionData, last: int | None, *, current_user: str | None = None
) -> list[Message]:
    """The previous turns to put before a run's question (``add_history_to_context``)."""
    runs = data.completed(last)
    users = {r.user_id for r in runs if r.user_id} | ({current_user} if current_user else set())
    name_user = len(users) > 1
    out: list[Message] = []
    for run in runs:
        out.extend(run.messages(name_user=name_user))
    return out


class OpenRun(Protocol):
    """The run a history entry is made for, on its open session (core.state's handle:
    the session layer sits above this one and stores these records)."""

    @property
    def run_id(self) -> str:
        """The run's id."""

    @property
    def user_id(self) -> str | None:
        """Who asked for the run."""

    @property
    def data(self) -> SessionData:
        """The session's data as the run opened it (its history so far)."""


#: how a RunOutput's status is stored (any other status: completed)
def audit_lines(stored: str | Iterable[object] | None) -> list[str]:
    """Audit entries as JSON texts, from the stored form (JSON Lines in one string) or
    from a list of objects (an export file)."""
    if not stored:
        return []
    if isinstance(stored, str):
        return stored.split("\n")
    return [dumps(entry) for entry in stored]


def _within(
    runs: list[tuple[RunRecord, str, int]], room: int, cache: PieceCache[RunRecord]
) -> list[tuple[RunRecord, str, int]]:
    """The runs whose JSON (commas included) fits in ``room`` bytes: transcripts
    dropped oldest first, then the oldest runs."""
    total = sum(p[2] + 1 for p in runs)  # + its comma
    for i, (run, _, size) in enumerate(runs):
        if total <= room:
            return runs
        if run.transcript:
            runs[i] = cache.run(replace(run, transcript=()), _run_text)
            total -= size - runs[i][2]
    drop = 0
    while total > room and drop < len(runs):
        total -= runs[drop][2] + 1
        drop += 1
    return runs[drop:]


def _run_text(run: RunRecord) -> str:
    return dumps(run.to_dict())


def _short(run: RunRecord) -> RunRecord:
    calls = tuple(replace(c, result=_cut(c.result)) for c in run.tool_calls)
    return replace(run, tool_calls=calls) if calls != run.tool_calls else run
