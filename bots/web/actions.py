"""Actions on sessions, each behind a confirmation page and each logged with the admin id.

Every change goes through ``core.db.admin`` (under the session's lease, hot and
durable stores together): restore is ``restore_version``, delete is
``delete_session``, reset replaces the state with an empty one as the next version
(``import_jsonl`` with ``replace``: history and run history are kept, so a reset can
be undone by restoring the version before it). Export and import are JSON Lines
(``export_line`` / ``parse_jsonl`` + ``import_jsonl``), limited to the viewer's scope.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import structlog
from aiohttp import web
from aiohttp.web_request import FileField

from bots.web.context import console, viewer
from bots.web.guard import check_scope, session_id_of
from bots.web.render import page, redirect
from core.db import admin
from core.db.admin_search import SessionQuery, search_sessions
from core.db.base import StoreError
from core.redaction import redact_text

log = structlog.get_logger("bots.web")

ACTIONS = {
    "reset": "Reset: the state becomes empty (the agent's defaults apply on its next run). "
    "Versions and run history are kept; restore the current version to undo.",
    "delete": "Delete: the session, its versions and its run history are removed from "
    "Redis and the durable store. This cannot be undone (export it first).",
    "restore": "Restore: version {version}'s state becomes the current state, saved as a "
    "new version (the current one stays in the history).",
}
_EXPORT_PAGE = 500


def _session_url(request: web.Request, session_id: str, done: str | None = None) -> str:
    url = f"{console(request).base}/session?id={quote(session_id, safe='')}"
    return url + (f"&done={quote(done, safe='')}" if done else "")


async def confirm(request: web.Request) -> web.Response:
    """The confirmation page of an action: what it will do, and the button that does it."""
    who = viewer(request)
    session_id = session_id_of(request, request.query.get("id"))
    action = request.query.get("action", "")
    if action not in ACTIONS:
        return page(
            request,
            "message.html",
            status=400,
            title="Unknown action",
            message=f"Actions are {', '.join(ACTIONS)}.",
        )
    check_scope(request, who, session_id, action)
    version = request.query.get("version", "")
    if action == "restore" and not version.isdigit():
        return page(
            request,
            "message.html",
            status=400,
            title="Which version?",
            message="Restore needs the version to restore (?version=N).",
        )
    return page(
        request,
        "confirm.html",
        session_id=session_id,
        action=action,
        version=version,
        explanation=ACTIONS[action].format(version=version),
    )


async def act(request: web.Request) -> web.Response:
    """Do a confirmed action (POST, CSRF-checked by the middleware)."""
    who = viewer(request)
    form = await request.post()
    session_id = session_id_of(request, form.get("id"))
    action = str(form.get("action", ""))
    if action not in ACTIONS or form.get("confirmed") != "yes":
        return page(
            request,
            "message.html",
            status=400,
            title="Not confirmed",
            message="Nothing was done: confirm the action on its confirmation page.",
        )
    check_scope(request, who, session_id, action)
    db = console(request).db
    bound = log.bind(action=action, admin_id=who.admin_id, target_session=session_id)
    try:
        if action == "restore":
            version = int(str(form.get("version", "")))
            new = await admin.restore_version(db, session_id, version, actor=who.admin_id)
            done = f"Version {version} restored as version {new}."
            bound.info("web_action", version=version, new_version=new)
        elif action == "reset":
            new = await _reset(db, session_id, who.admin_id)
            done = f"State reset (now version {new}); the previous version is kept."
            bound.info("web_action", new_version=new)
        else:
            await admin.delete_session(db, session_id)
            bound.info("web_action")
            return redirect(f"{console(request).base}/?done={quote('Session deleted.')}")
    except (admin.SessionNotFoundError, admin.VersionNotFoundError) as exc:
        bound.warning("web_action_failed", error=str(exc))
        return page(
            request,
            "message.html",
            status=404,
            title="Nothing to do",
            message=f"{exc}. Nothing was changed.",
        )
    except (StoreError, ValueError) as exc:
        bound.error("web_action_failed", error=redact_text(str(exc)))
        return page(
            request,
            "message.html",
            status=503,
            title="The store failed",
            message=f"{redact_text(str(exc))}. Look at the session before trying again.",
        )
    return redirect(_session_url(request, session_id, done))


async def _reset(db: Any, session_id: str, admin_id: str) -> int:
    """Empty state as the session's next version, through the import path (under its lease)."""
    current = await admin.load_session(db, session_id)
    line = {
        "session_id": session_id,
        "version": current.version + 1,
        "kind": current.kind,
        "owner_id": current.owner_id,
        "user_id": admin_id,
        "state": {},
    }
    await admin.import_jsonl(db, [json.dumps(line)], replace=True)
    return (await admin.load_session(db, session_id)).version


async def export_one(request: web.Request) -> web.StreamResponse:
    """One session as a JSON Lines file."""
    who = viewer(request)
    session_id = session_id_of(request, request.query.get("id"))
    check_scope(request, who, session_id, "export")
    try:
        record = await admin.load_session(console(request).db, session_id)
    except admin.SessionNotFoundError:
        return page(
            request,
            "message.html",
            status=404,
            title="No such session",
            message=f"There is no session {session_id!r}.",
        )
    text, _repaired = admin.export_line(record)
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
                lines.append(admin.export_line(record)[0])
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
        records = admin.parse_jsonl(text.splitlines(), getattr(db, "limits", None))
    except admin.ImportFileError as exc:
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
        written = await admin.import_jsonl(db, text.splitlines(), replace=replace)
    except admin.ImportFileError as exc:
        return page(request, "import.html", status=400, error=str(exc), preview=None)
    except admin.ImportWriteError as exc:
        log.error("web_action_failed", action="import", admin_id=who.admin_id, error=str(exc))
        return page(request, "import.html", status=503, error=str(exc), preview=None)
    log.info(
        "web_action", action="import", admin_id=who.admin_id, sessions=written, replace=replace
    )
    return page(
        request, "message.html", title="Imported", message=f"{written} session(s) imported."
    )


def add_routes(app: web.Application) -> None:
    """The action routes: confirmation pages (GET) and the actions (POST)."""
    app.router.add_get("/session/confirm", confirm, name="confirm")
    app.router.add_post("/session/act", act, name="act")
    app.router.add_get("/session/export", export_one, name="export-one")
    app.router.add_get("/export", export_all, name="export-all")
    app.router.add_get("/import", import_form, name="imports")
    app.router.add_post("/import", import_upload, name="imports-upload")
