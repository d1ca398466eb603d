"""``Agent(introduction=...)``: a new session starts with the agent's introduction.

As in Agno, a session created by a run of an owner with an introduction gets, before
that run, a first run whose answer is the introduction (no question; its one message
is the assistant's). The model sees it as the assistant's earlier turn when history
is in its context, and the session's runs and chat history show it first. It is
recorded on the run's open session, so the run's one save stores it with the run;
a run that stores nothing stores no introduction either.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from core.models.base import Message
from core.run.history import RunRecord, message_to_dict
from core.state.session import SessionHandle

if TYPE_CHECKING:  # it imports this module
    from core.agent.owner import SessionOwner


def introduce(owner: SessionOwner, handle: SessionHandle) -> None:
    """Record ``owner``'s introduction as the first run of a session this run creates."""
    text = owner.introduction
    if text is None or handle.loaded is not None or handle.data.runs:
        return  # none to give, or the session existed before this run
    handle.record_run(
        RunRecord(
            run_id=uuid.uuid4().hex,
            status="completed",
            input="",
            output=text,
            user_id=handle.user_id,
            owner_id=owner.id,
            transcript=(message_to_dict(Message("assistant", text)),),
        )
    )
