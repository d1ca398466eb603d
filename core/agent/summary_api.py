"""Session summaries outside a run: Agno's ``get_session_summary`` on agents and teams.

Reading is all there is here; summaries are written by the runs themselves
(:mod:`core.session.summary`), in the run's save.
"""

from __future__ import annotations

from core.agent.owner import SessionOwner
from core.models.base import Model
from core.run.history import SessionData
from core.session.summary import SessionSummary, SessionSummaryManager, summary_manager
from core.utils.sync import run_sync


class SessionSummaryApi(SessionOwner):
    """``get_session_summary`` / ``aget_session_summary``, and the summary settings."""

    def set_summary_options(
        self,
        *,
        enable_session_summaries: bool,
        session_summary_manager: SessionSummaryManager | None,
        add_session_summary_to_context: bool | None,
        model: Model | None,
    ) -> bool:
        """Keep Agno's three summary arguments; whether summaries go into the context
        (Agno's default: when summaries are enabled or a manager is given)."""
        self.enable_session_summaries = enable_session_summaries
        self.session_summary_manager = session_summary_manager
        self.summaries = summary_manager(enable_session_summaries, session_summary_manager, model)
        if add_session_summary_to_context is None:
            add_session_summary_to_context = (
                enable_session_summaries or session_summary_manager is not None
            )
        self.add_session_summary_to_context = add_session_summary_to_context
        return add_session_summary_to_context

    async def aget_session_summary(self, session_id: str | None = None) -> SessionSummary | None:
        """The session's stored summary (None: the session has none, or does not exist)."""
        record = await self.db.aload(session_id or self.session_id)
        if record is None:
            return None
        stored = SessionData.decode(record.data).summary
        return None if stored is None else SessionSummary.from_dict(stored)

    def get_session_summary(self, session_id: str | None = None) -> SessionSummary | None:
        """Sync twin of :meth:`aget_session_summary`."""
        return run_sync(self.aget_session_summary(session_id))
