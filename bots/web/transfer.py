"""Export and import of sessions as JSON Lines, limited to the viewer's scope.

Export writes ``core.governance.transfer.export_line`` per session; import validates the whole
file first (``parse_jsonl``), refuses it whole when a session lies outside the
viewer's workspace, shows what it will write, and writes only once confirmed
(``import_jsonl``: all of it, or an error naming what was and was not written).
"""

from __future__ import annotations

import structlog
from aiohttp import web
from aiohttp.web_request import FileField

from bots.web.context import console, viewer
from bots.web.guard import check_scope, session_id_of
from bots.web.render import page
from core.exceptions import ImportFileError, ImportWriteError, SessionNotFoundError
from core.governance.save import load_session
from core.governance.search import SessionQuery, search_sessions
from core.governance.transfer import export_line, import_jsonl, parse_jsonl

log = structlog.get_logger("bots.web")

_EXPORT_PAGE = 500


async def export_one(request: web.Request) -> web.StreamResponse:
    """One session as a JSON Lines file."""
    who = viewer(request)
    session_id = session_id_of(request, request.query.get("id"))
    check_scope(request, who, session_id, "export")
    try:
        record = await load_session(console(request).db, session_id)
    except SessionNotFoundError:
        return page(
            request,
            "message.html",
            status=404,
            title="No such session",
            message=f"There is no session {session_id!r}.",
        )
    text, _repaired = export_line(record)
    log.info("web_action", action="export", admin_id=who.admin_id, target_session=session_id)
    return _download(text + "\n", "session.jsonl")


async def export_all(request: web.Request) -> web.StreamResponse:
    """Every session the viewer may see, as a JSON Lines file.

    A session whose stored values JSON cannot carry is never left out silently: the
    page names those sessions first, and ``?skip=yes`` downloads the others.
    """
    who = viewer(request)
    db = console(request).db
    lines: list[str] = []
    skipped: list[str] = []
    after = None
    while True:
        found = await search_sessions(
            db, SessionQuery(scope=who.scope), limit=_EXPORT_PAGE, after=after
        )
        records = await db.aload_many(r.session_id for r in found.rows)
        for row in found.rows:
            record = records.get(row.session_id)
            if record is None:
                continue  # deleted meanwhile
            try:
                lines.append(export_line(record)[0])
            except (TypeError, ValueError):
                skipped.append(row.session_id)
        if found.next_cursor is None:
            break
        after = found.next_cursor
    if skipped and request.query.get("skip") != "yes":
        log.warning("web_export_incomplete", admin_id=who.admin_id, skipped=skipped[:20])
        return page(
            request, "export_skipped.html", status=409, skipped=skipped, exported=len(lines)
        )
    log.info(
        "web_action",
        action="export_all",
        admin_id=who.admin_id,
        scope=who.scope,
        sessions=len(lines),
        skipped=len(skipped),
    )
    return _download("".join(line + "\n" for line in sorted(lines)), "sessions.jsonl")


def _download(text: str, name: str) -> web.Response:
    return web.Response(
        text=text,
        content_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


async def import_form(request: web.Request) -> web.Response:
    """The upload form."""
    return page(request, "import.html", error=None, preview=None)


async def import_upload(request: web.Request) -> web.Response:
    """Validate an upload; show what it will write; write it all only when confirmed."""
    who = viewer(request)
    form = await request.post()
    replace = form.get("replace") == "yes"
    upload = form.get("file")
    if isinstance(upload, FileField):
        try:
            text = upload.file.read().decode("utf-8")
        except UnicodeDecodeError:
            return page(
                request,
                "import.html",
                status=400,
                preview=None,
                error="The file is not UTF-8 text; nothing was imported.",
            )
    else:
        text = str(form.get("content", ""))
    db = console(request).db
    try:
        records = parse_jsonl(text.splitlines(), getattr(db, "limits", None))
    except ImportFileError as exc:
        return page(request, "import.html", status=400, error=str(exc), preview=None)
    outside = [r.session_id for r in records if not who.covers(r.session_id)]
    if outside:
        log.warning(
            "web_out_of_scope",
            action="import",
            admin_id=who.admin_id,
            target_session=outside[0],
            count=len(outside),
        )
        return page(
            request,
            "import.html",
            status=403,
            preview=None,
            error=f"{len(outside)} session(s) in this file are outside your workspace "
            f"(first: {outside[0]!r}); nothing was imported. This attempt was logged.",
        )
    if not records:
        return page(
            request,
            "import.html",
            status=400,
            preview=None,
            error="The file holds no sessions; nothing was imported.",
        )
    if form.get("confirmed") != "yes":
        existing = await db.aload_many(r.session_id for r in records)
        return page(
            request,
            "import.html",
            error=None,
            content=text,
            replace=replace,
            preview={"sessions": [r.session_id for r in records], "existing": sorted(existing)},
        )
    try:
        written = await import_jsonl(db, text.splitlines(), replace=replace)
    except ImportFileError as exc:
        return page(request, "import.html", status=400, error=str(exc), preview=None)
    except ImportWriteError as exc:
        log.error("web_action_failed", action="import", admin_id=who.admin_id, error=str(exc))
        return page(request, "import.html", status=503, error=str(exc), preview=None)
    log.info(
        "web_action", action="import", admin_id=who.admin_id, sessions=written, replace=replace
    )
    return page(
        request, "message.html", title="Imported", message=f"{written} session(s) imported."
    )


def add_routes(app: web.Application) -> None:
    """Export (one session, or all in scope) and import."""
    app.router.add_get("/session/export", export_one, name="export-one")
    app.router.add_get("/export", export_all, name="export-all")
    app.router.add_get("/import", import_form, name="imports")
    app.router.add_post("/import", import_upload, name="imports-upload")
