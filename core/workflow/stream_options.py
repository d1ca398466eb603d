"""A workflow's own streaming defaults: Agno's ``Workflow(stream=, stream_events=)``.

A run that passes ``stream`` / ``stream_events`` uses its own values; one that does not
takes the workflow's (``stream=None`` on the workflow: not streamed). As in Agno, the
run's ``stream_events`` and the workflow's are or-ed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, Literal, overload

from core.agent.run_methods import RunMethods
from core.run.events import RunOutputEvent
from core.run.output import RunOutput


class StreamDefaults(RunMethods):
    """``run`` / ``arun`` reading ``self.stream`` and ``self.stream_events`` when not given."""

    stream: bool | None = None
    stream_events: bool = False

    def _stream_options(self, stream: bool | None, stream_events: bool | None) -> tuple[bool, bool]:
        streamed = (self.stream or False) if stream is None else stream
        # the workflow's default applies only to streamed runs (Agno drops it otherwise);
        # a run's own stream_events=True without streaming is refused, as for agents
        events = stream_events if stream_events is not None else self.stream_events and streamed
        return streamed, events

    # typed per ``stream``: omitted, the workflow's own default decides, so either
    @overload  # type: ignore[override]
    def run(
        self,
        input: str,
        *,
        stream: Literal[False],
        stream_events: bool | None = None,
        **options: Any,
    ) -> RunOutput: ...

    @overload
    def run(
        self,
        input: str,
        *,
        stream: Literal[True],
        stream_events: bool | None = None,
        **options: Any,
    ) -> Iterator[RunOutputEvent]: ...

    @overload
    def run(
        self,
        input: str,
        *,
        stream: bool | None = None,
        stream_events: bool | None = None,
        **options: Any,
    ) -> RunOutput | Iterator[RunOutputEvent]: ...

    def run(
        self,
        input: str,
        *,
        stream: bool | None = None,
        stream_events: bool | None = None,
        **options: Any,
    ) -> Any:
        """As :meth:`RunMethods.run`, with the workflow's defaults for the stream options."""
        streamed, events = self._stream_options(stream, stream_events)
        return super().run(input, stream=streamed, stream_events=events, **options)

    @overload  # type: ignore[override]
    def arun(
        self,
        input: str,
        *,
        stream: Literal[False],
        stream_events: bool | None = None,
        **options: Any,
    ) -> Coroutine[Any, Any, RunOutput]: ...

    @overload
    def arun(
        self,
        input: str,
        *,
        stream: Literal[True],
        stream_events: bool | None = None,
        **options: Any,
    ) -> AsyncIterator[RunOutputEvent]: ...

    @overload
    def arun(
        self,
        input: str,
        *,
        stream: bool | None = None,
        stream_events: bool | None = None,
        **options: Any,
    ) -> Coroutine[Any, Any, RunOutput] | AsyncIterator[RunOutputEvent]: ...

    def arun(
        self,
        input: str,
        *,
        stream: bool | None = None,
        stream_events: bool | None = None,
        **options: Any,
    ) -> Any:
        """As :meth:`RunMethods.arun`, with the workflow's defaults for the stream options."""
        streamed, events = self._stream_options(stream, stream_events)
        return super().arun(input, stream=streamed, stream_events=events, **options)
