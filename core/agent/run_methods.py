"""The run methods every session owner shares: ``run``, ``arun``, ``print_response``.

A class that can run on an open session (``arun_on_session``) gets the rest from
:class:`RunMethods`: opening its session with the precedence rules, the run's deadline
(``run_timeout``, see :mod:`core.agent.deadline`), persisting at the end (even after
an error, never after the deadline), streaming, and the sync twins. Agents, teams and
workflows all use it.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

from core.agent.deadline import run_deadline
from core.agent.direct_tool import DirectToolMethods, resume_direct_call
from core.agent.loop import ContentSink
from core.agent.pause import decisions_of, resume_of
from core.agent.streaming import stream_run
from core.db.base import BaseDb, SessionMeta
from core.exceptions import RunError
from core.run.events import RunContentEvent, RunOutputEvent
from core.run.history import run_record
from core.run.output import RunOutput
from core.state.session import SessionHandle, open_session
from core.utils.observe import observe
from core.utils.sync import iterate_sync, run_sync


class RunMethods:
    """Run methods for a class with ``arun_on_session`` and the session-owner attributes."""

    db: BaseDb
    id: str
    kind: str
    session_id: str
    user_id: str | None
    session_state: dict[str, Any]
    overwrite_db_session_state: bool
    #: seconds a run may take once it holds its session (None: no deadline)
    run_timeout: float | None

    async def arun_on_session(
        self,
        handle: SessionHandle,
        input: str,
        *,
        dependencies: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        on_content: ContentSink | None = None,
        injected: Mapping[str, Any] | None = None,
    ) -> RunOutput:
        """Run on a session that is already open (implemented by the owner)."""
        raise NotImplementedError

    def open_run_session(
        self,
        session_id: str | None,
        user_id: str | None,
        session_state: Mapping[str, Any] | None = None,
    ) -> contextlib.AbstractAsyncContextManager[SessionHandle]:
        """Open this owner's session for one run (run argument > stored > default)."""
        return open_session(
            self.db,
            session_id=session_id or self.session_id,
            user_id=user_id,
            run_id=uuid.uuid4().hex,
            meta=SessionMeta(kind=self.kind, owner_id=self.id, user_id=user_id),
            default=self.session_state,
            run_state=session_state,
            overwrite=self.overwrite_db_session_state,
        )

    def check_runnable(self) -> None:
        """Raise before any session is opened when this owner cannot run (no-op here)."""

    async def _arun(
        self,
        input: str,
        *,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, Any] | None = None,
        dependencies: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        on_content: ContentSink | None = None,
    ) -> RunOutput:
        self.check_runnable()  # a refused run must store nothing
        user_id = user_id or self.user_id
        with observe("run", owner_id=self.id, kind=self.kind):  # lock and saves included
            async with (
                self.open_run_session(session_id, user_id, session_state) as handle,
                run_deadline(handle, self.run_timeout),
            ):
                pausing: dict[str, Any] = {"can_pause": True} if self.kind == "agent" else {}
                return await self._run_recorded(
                    handle, input, dependencies, metadata, on_content, pausing
                )

    async def _run_recorded(
        self,
        handle: SessionHandle,
        input: str,
        dependencies: Mapping[str, Any] | None,
        metadata: Mapping[str, Any] | None,
        on_content: ContentSink | None,
        extra: Mapping[str, Any],
    ) -> RunOutput:
        """Run on an open session, record the run in its history, persist at the end."""
        try:
            output = await self.arun_on_session(
                handle,
                input,
                dependencies=dependencies,
                metadata=metadata,
                on_content=on_content,
                **extra,
            )
        except Exception:
            # the history says the run failed; state from earlier batches stays saved
            handle.record_run(run_record(handle, input, None, owner_id=self.id))
            raise
        else:
            handle.record_run(run_record(handle, input, output, owner_id=self.id))
        finally:
            await handle.persist()  # keep what earlier steps and tool batches did
        # the live dict is discarded after the run, so no copy is needed
        output.session_state = handle.tracker.public_state()
        return output

    async def acontinue_run(
        self,
        run_id: str | None = None,
        *,
        run_response: RunOutput | None = None,
        approved: Iterable[str] = (),
        rejected: Iterable[str] = (),
        session_id: str | None = None,
        user_id: str | None = None,
        dependencies: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> RunOutput:
        """Resume a run paused for confirmation, from this or any other process.

        Decide every waiting call: by ``approved`` / ``rejected`` (tool call ids or tool
        names), or Agno's way, by setting ``confirmed`` on ``run_response``'s
        ``tools_requiring_confirmation``. Approved calls run (with the usual hooks,
        validation and rollback), rejected ones never do and the model is told; then
        the run goes on. A run that is not paused (already resumed, say by a second
        click) raises RunError and changes nothing.
        """
        if run_response is not None:
            run_id = run_id or run_response.run_id
            session_id = session_id or run_response.session_id
            approved, rejected = decisions_of(run_response, approved, rejected)
        if not run_id:
            raise ValueError("continue_run needs run_id= or run_response=")
        session_id = session_id or self.session_id
        async with (
            open_session(
                self.db,
                session_id=session_id,
                user_id=user_id,
                run_id=run_id,
                meta=SessionMeta(kind=self.kind, owner_id=self.id, user_id=user_id),
                default=self.session_state,
            ) as handle,
            run_deadline(handle, self.run_timeout),
        ):
            run = handle.data.find(run_id)
            if run is None or run.status != "paused" or not run.paused:
                state = "not in this session's history" if run is None else run.status
                raise RunError(
                    f"run {run_id!r} of session {session_id!r} is not waiting for a "
                    f"confirmation ({state}); nothing was done"
                )
            resume = resume_of(run.paused, approved, rejected)
            if user_id is None and run.user_id is not None:
                handle.user_id = run.user_id
                handle.meta = SessionMeta(kind=self.kind, owner_id=self.id, user_id=run.user_id)
            if run.paused.get("direct"):  # a slash command's call: no model turn follows
                assert isinstance(self, DirectToolMethods)
                return await resume_direct_call(self, handle, run, resume)
            return await self._run_recorded(
                handle, run.input, dependencies, metadata, None, {"resume": resume}
            )

    def continue_run(self, run_id: str | None = None, **kwargs: Any) -> RunOutput:
        """Sync twin of :meth:`acontinue_run`."""
        return run_sync(self.acontinue_run(run_id, **kwargs))

    def arun(
        self, input: str, *, stream: bool = False, stream_events: bool = False, **kwargs: Any
    ) -> Any:
        """``await x.arun(...)`` -> RunOutput; with ``stream=True`` an async iterator of events.

        ``stream_events=True`` adds the run's lifecycle events (core.run.events); it
        needs ``stream=True``.
        """
        if stream_events and not stream:
            raise ValueError("stream_events=True needs stream=True (events are streamed)")
        if stream:
            return stream_run(
                self,
                lambda sink: self._arun(input, on_content=sink, **kwargs),
                events=stream_events,
            )
        return self._arun(input, **kwargs)

    def run(
        self, input: str, *, stream: bool = False, stream_events: bool = False, **kwargs: Any
    ) -> Any:
        """Sync twin of :meth:`arun`; with ``stream=True`` an iterator of events."""
        if stream:
            events: AsyncIterator[RunOutputEvent] = self.arun(
                input, stream=True, stream_events=stream_events, **kwargs
            )
            return iterate_sync(events)
        if stream_events:
            raise ValueError("stream_events=True needs stream=True (events are streamed)")
        return run_sync(self._arun(input, **kwargs))

    def print_response(self, input: str, *, stream: bool = False, **kwargs: Any) -> RunOutput:
        """Run and print the answer (chunk by chunk with ``stream=True``)."""
        if not stream:
            output: RunOutput = self.run(input, **kwargs)
            print(output.get_content_as_string())
            return output
        final: RunOutput | None = None
        events: Iterator[RunOutputEvent] = self.run(input, stream=True, **kwargs)
        for event in events:
            if event.run_output is not None:
                final = event.run_output
            elif isinstance(event, RunContentEvent):
                print(event.content, end="", flush=True)
        print()
        assert final is not None
        return final

    async def aprint_response(self, input: str, **kwargs: Any) -> RunOutput:
        """Async twin of :meth:`print_response` (non-streaming)."""
        output = await self._arun(input, **kwargs)
        print(output.get_content_as_string())
        return output
