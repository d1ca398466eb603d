"""Read-only pages: the sessions list (with htmx search), one session, a version diff."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bots.web.context import console, viewer
from bots.web.diffs import state_diff
from bots.web.guard import check_scope, session_id_of
from bots.web.render import page
from bots.web.search_form import SearchError, SearchForm
from bots.web.versions import version_rows
from core.exceptions import SessionNotFoundError
from core.governance.save import load_session
from core.governance.search import Cursor, search_sessions
from core.governance.sessions import session_history, summary
from core.redaction import redact, redact_text
from core.run.history import SessionData

PAGE_SIZE = 50
#: versions listed on a session page (and offered for diffs)
VERSIONS = 50


async def sessions_list(request: web.Request) -> web.Response:
    """The sessions list; only the rows for an htmx search or "more"."""
    who = viewer(request)
    form = SearchForm.read(request.query)
    error = None
    rows: list[Any] = []
    cursor = None
    try:
        query = form.query(who.scope)
        after = Cursor.decode(request.query["after"]) if request.query.get("after") else None
        found = await search_sessions(console(request).db, query, limit=PAGE_SIZE, after=after)
        rows, cursor = found.rows, found.next_cursor
    except (SearchError, ValueError) as exc:
        error = str(exc)
    partial = "HX-Request" in request.headers and request.query.get("partial") == "rows"
    names = await console(request).names.labels(
        sessions=[r.session_id for r in rows], users=[r.user_id for r in rows]
    )
    return page(
        request,
        "session_rows.html" if partial else "sessions.html",
        form=form.values,
        rows=rows,
        next_after=cursor.encode() if cursor else None,
        error=error,
        appending=bool(request.query.get("after")),
        flash=request.query.get("done"),
        status=400 if error else 200,
        names=names,
    )


async def session_page(request: web.Request) -> web.Response:
    """One session: state tree, run history, versions with who changed what, actions."""
    who = viewer(request)
    session_id = session_id_of(request, request.query.get("id"))
    check_scope(request, who, session_id, "view")
    db = console(request).db
    try:
        record = await load_session(db, session_id)
    except SessionNotFoundError:
        return page(
            request,
            "message.html",
            status=404,
            title="No such session",
            message=f"There is no session {session_id!r} (deleted, or never saved).",
        )
    versions = version_rows(
        record, await session_history(db, session_id, limit=VERSIONS, reveal=who.reveal)
    )
    runs = _runs(record.data, reveal=who.reveal)
    users = [record.user_id, *(v["user_id"] for v in versions), *(r["user_id"] for r in runs)]
    names = await console(request).names.labels(sessions=[session_id], users=users)
    state = record.state
    return page(
        request,
        "session.html",
        session=summary(record),
        state=state if who.reveal else redact(state),
        runs=runs,
        versions=versions,
        flash=request.query.get("done"),
        names=names,
    )


def _runs(data: str, *, reveal: bool) -> list[dict[str, Any]]:
    """The session's run history, newest first, text redacted unless ``reveal``."""
    runs = []
    for run in reversed(SessionData.decode(data).runs):
        item = run.to_dict()
        item.pop("paused", None)
        if not reveal:
            item["input"] = redact_text(item["input"] or "")
            item["output"] = redact_text(item["output"]) if item["output"] else item["output"]
            for call in item["tool_calls"]:
                call["arguments"] = redact(call["arguments"])
                call["result"] = redact_text(call["result"]) if call["result"] else call["result"]
        runs.append(item)
    return runs


async def diff_view(request: web.Request) -> web.Response:
    """The diff between two kept versions (a fragment for htmx, else a page)."""
    who = viewer(request)
    session_id = session_id_of(request, request.query.get("id"))
    check_scope(request, who, session_id, "diff")
    try:
        a, b = int(request.query.get("a", "")), int(request.query.get("b", ""))
    except ValueError:
        return page(
            request,
            "message.html",
            status=400,
            title="Pick two versions",
            message="Choose the two versions to compare.",
        )
    versions = await session_history(
        console(request).db, session_id, limit=VERSIONS, reveal=who.reveal
    )
    states = {v["version"]: v["state"] for v in versions}
    missing = [v for v in (a, b) if v not in states]
    if missing:
        return page(
            request,
            "message.html",
            status=404,
            title="Version not kept",
            message=f"Session {session_id!r} keeps no version {missing[0]} "
            "among its recent versions.",
        )
    old, new = sorted((a, b))
    fragment = "HX-Request" in request.headers  # the session page around it names it
    names = {} if fragment else await console(request).names.labels(sessions=[session_id])
    return page(
        request,
        "diff.html" if fragment else "diff_page.html",
        session_id=session_id,
        old=old,
        new=new,
        lines=state_diff(states[old], states[new]),
        names=names,
    )


def add_routes(app: web.Application) -> None:
    """The read-only session pages."""
    app.router.add_get("/", sessions_list, name="sessions")
    app.router.add_get("/session", session_page, name="session")
    app.router.add_get("/session/diff", diff_view, name="session-diff")
