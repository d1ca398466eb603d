"""What a run does, from lease to output — every run of every owner goes through here.

A model turn (``run`` / ``arun``), a direct tool call (slash command, ``arun_tool``)
and a resumed confirmation (``continue_run``) all take the same steps, in order:

1. **Check** — refuse before anything is touched (free text needs a model), so a
   refused run stores nothing.
2. **Open the session** — take the session's run lease, load it, resolve the state
   to use (run argument > stored > default): :func:`core.state.session.open_session`.
   With a ``budget``, the day's usage of the run's scopes is checked here, under the
   lease and before the model is called (:mod:`core.governance.budgets.gate`); a refused run
   stores nothing.
3. **Deadline** — the run's ``run_timeout`` starts once it holds the session
   (:func:`core.agent.deadline.run_deadline`); past it nothing more is saved.
4. **Run** — the owner's :meth:`~core.agent.owner.SessionOwner.arun_top` (the model
   loop on the open session), or the body a direct call or a resume brings.
5. **Record** — the run's entry in the session's bounded history (a failed run is
   recorded as failed; a run that never started is not recorded), then, after a
   model run with ``enable_session_summaries``, the session's new summary
   (:mod:`core.session.summary`), then the run's usage in its budget counters
   (failed runs too; the summary's tokens included).
6. **Save** — one final save of what changed, releasing the run lease in the same
   store call (:meth:`SessionHandle.persist_final
   <core.state.session.SessionHandle.persist_final>`); tool batches saved earlier stay
   saved. Also after an error once the run has started; never after the deadline.
   :func:`_save` is its only call site.
7. **Output** — the RunOutput, with the state as the run left it.

Streaming (:mod:`core.agent.streaming`) wraps the same steps: the completed event is
sent only after step 6, so it never announces state that was not stored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from core.agent.deadline import run_deadline
from core.agent.introduction import introduce
from core.agent.loop import ContentSink, Resume
from core.agent.pause import resume_of
from core.exceptions import RunError
from core.governance.budgets.gate import check_budget, metered, record_usage, usage_of
from core.governance.budgets.model import Budget, Scope, Usage, run_scopes
from core.memory.manager import remember_run
from core.run.history import RunRecord
from core.run.output import RunOutput
from core.run.run_input import RunMedia
from core.run.run_records import run_record
from core.session.summary import summarize_run
from core.state.session import SessionHandle
from core.utils.observe import observe

if TYPE_CHECKING:
    from core.agent.owner import SessionOwner


class RunBody:
    """What step 4 runs on the open session, and what step 5 records it as."""

    __slots__ = ("history_input", "run", "spends_tokens")

    def __init__(
        self,
        run: Callable[[SessionHandle, RunBody], Awaitable[RunOutput]],
        *,
        history_input: str | None = None,
        spends_tokens: bool = False,
    ) -> None:
        self.run = run
        #: the input the history records the run under; None: not recorded (yet).
        #: A body may set it once it knows (a resume learns it from the stored run).
        self.history_input = history_input
        #: it may call the model: token budgets apply (a direct tool call: only
        #: tool-call budgets)
        self.spends_tokens = spends_tokens


async def execute(
    owner: SessionOwner,
    body: RunBody,
    *,
    session_id: str | None,
    user_id: str | None,
    session_state: Mapping[str, object] | None = None,
    run_id: str | None = None,
    check: bool = True,
    metadata: Mapping[str, object] | None = None,
) -> RunOutput:
    """Steps 1–7 for ``owner``: the one path every run takes.

    ``metadata`` is the run's metadata (``run_context.metadata``); the handle keeps it
    as the run's origin (which chat event asked), for what the save records.
    """
    if check:
        owner.check_runnable()  # 1. a refused run must store nothing
    user_id = user_id or owner.user_id
    with observe("run", owner_id=owner.id, kind=owner.kind):  # lock and saves included
        async with (
            owner.open_run_session(session_id, user_id, session_state, run_id=run_id) as handle,
            run_deadline(handle, owner.run_timeout),
        ):
            handle.origin = metadata or {}
            introduce(owner, handle)  # a new session's first run; saved with this one
            budget = owner.budget
            if budget is not None:  # under the lease: a session's runs check in turn
                await check_budget(
                    budget, owner.db, _scopes(handle), spends_tokens=body.spends_tokens
                )
            with metered() as meter:
                try:
                    output = await body.run(handle, body)
                except Exception:
                    await _record_usage(budget, owner, handle, meter)  # tokens spent count
                    if body.history_input is None:
                        raise  # it never started: nothing to record or keep
                    handle.record_run(_record(owner, handle, body.history_input, None))
                    await _save(handle)  # keep what earlier steps and tool batches did
                    raise
            if body.history_input is not None:
                handle.record_run(_record(owner, handle, body.history_input, output))
                if body.spends_tokens and owner.summaries is not None:  # before the usage
                    await summarize_run(owner.summaries, handle, output)
                memories = getattr(owner, "user_memories", None)
                if body.spends_tokens and memories is not None:
                    await remember_run(
                        memories,
                        getattr(owner, "model", None),
                        user_id=handle.user_id,
                        text=body.history_input,
                        output=output,
                        deadline=handle.deadline,
                    )
            await _record_usage(budget, owner, handle, usage_of(output.metrics))
            await _save(handle)
            # decoded from the saved texts only if the caller reads it
            output.keep_state(handle.final_state())
            return output


async def _save(handle: SessionHandle) -> None:
    """Step 6, the run's final save (the only one here), which also gives the lease back.

    The save and the release are one store call (RedisDb: one script), so a turn on
    RedisDb costs two round trips: open (lease + load) and this.
    """
    await handle.persist_final()


def _record(
    owner: SessionOwner, handle: SessionHandle, input: str, output: RunOutput | None
) -> RunRecord:
    team_id = owner.id if owner.kind == "team" else None
    media = handle.media.references()
    return run_record(handle, input, output, owner_id=owner.id, team_id=team_id, media=media)


def _scopes(handle: SessionHandle) -> list[Scope]:
    return run_scopes(handle.session_id, handle.user_id, handle.origin)


async def _record_usage(
    budget: Budget | None, owner: SessionOwner, handle: SessionHandle, usage: Usage
) -> None:
    """Step 5's usage half: before the final save, so the lease still orders it."""
    if budget is not None:
        await record_usage(budget, owner.db, _scopes(handle), usage)


# -- the bodies --------------------------------------------------------------------


def model_turn(
    owner: SessionOwner,
    input: str,
    *,
    dependencies: Mapping[str, object] | None = None,
    metadata: Mapping[str, object] | None = None,
    on_content: ContentSink | None = None,
    media: RunMedia | None = None,
) -> RunBody:
    """A model run of ``owner`` on ``input`` (``run`` / ``arun``), with its ``media``
    (images and files; the history keeps their references, never their bytes)."""

    async def run(handle: SessionHandle, _: RunBody) -> RunOutput:
        if media:
            handle.media = media
        return await owner.arun_top(
            handle, input, dependencies=dependencies, metadata=metadata, on_content=on_content
        )

    return RunBody(run, history_input=input, spends_tokens=True)


#: resumes a direct (slash command) call: (owner, handle, stored run, decisions) -> output;
#: the owner is one with tools (core.agent.direct_tool), hence Any here
DirectResume = Callable[[Any, SessionHandle, RunRecord, Resume], Awaitable[RunOutput]]


def resumed_turn(
    owner: SessionOwner,
    run_id: str,
    *,
    approved: Iterable[str],
    rejected: Iterable[str],
    session_id: str,
    user_id: str | None,
    dependencies: Mapping[str, object] | None,
    metadata: Mapping[str, object] | None,
    resume_direct: DirectResume,
) -> RunBody:
    """``continue_run``: the paused run ``run_id``, decided, taken up where it stopped.

    A run that is not paused (already resumed, say by a second click) raises RunError
    and changes nothing.
    """

    async def run(handle: SessionHandle, body: RunBody) -> RunOutput:
        paused = handle.data.find(run_id)
        if paused is None or paused.status != "paused" or not paused.paused:
            state = "not in this session's history" if paused is None else paused.status
            raise RunError(
                f"run {run_id!r} of session {session_id!r} is not waiting for a "
                f"confirmation ({state}); nothing was done"
            )
        resume = resume_of(paused.paused, approved, rejected)
        if user_id is None and paused.user_id is not None:
            handle.user_id = paused.user_id  # the asker's run, whoever decided
            handle.meta = owner.session_meta(paused.user_id)
        body.history_input = paused.input
        if paused.paused.get("direct"):  # a slash command's call: no model turn follows
            return await resume_direct(owner, handle, paused, resume)
        return await owner.arun_top(
            handle,
            paused.input,
            dependencies=dependencies,
            metadata=metadata,
            on_content=None,
            resume=resume,
        )

    return RunBody(run, spends_tokens=True)
