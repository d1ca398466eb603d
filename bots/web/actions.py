"""Actions on one session, each behind a confirmation page and logged with the admin id.

Every change goes through ``core.governance`` (under the session's lease, hot and
durable stores together): restore is ``restore`` (``restore_version``), delete is
``delete_session``, reset is ``reset_session`` (an empty state as the next version;
history and run history are kept, so a reset can be undone by restoring the version
before it). Export and import: ``transfer.py``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import structlog
from aiohttp import web

from bots.web.context import console, viewer
from bots.web.diffs import DiffLine, state_diff
from bots.web.guard import check_scope, session_id_of
from bots.web.render import page, redirect
from core.exceptions import (
    RestoreSchemaError,
    SessionNotFoundError,
    StaleVersionError,
    StoreError,
    VersionNotFoundError,
)
from core.governance.restore import restore, restore_plan
from core.governance.save import load_session
from core.governance.sessions import delete_session, reset_session
from core.redaction import redact, redact_text

log = structlog.get_logger("bots.web")

ACTIONS = {
    "reset": "Reset: the state becomes empty ({{}}) as a new version. The agent does not get "
    "its default state back (deleting the session does that). Versions and run history "
    "are kept; restore the current version to undo.",
    "delete": "Delete: the session, its versions and its run history are removed from "
    "Redis and the durable store. This cannot be undone (export it first).",
    "restore": "Restore: version {version}'s state becomes the current state, saved as a "
    "new version (the current one stays in the history).",
}


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
    preview = await _preview(request, session_id, action, version)
    if isinstance(preview, web.Response):
        return preview
    seen, lines, kept = preview
    return page(
        request,
        "confirm.html",
        session_id=session_id,
        action=action,
        version=version,
        seen=seen,
        explanation=ACTIONS[action].format(version=version),
        lines=lines,
        kept=kept,
        names=await console(request).names.labels(sessions=[session_id]),
    )


Preview = tuple[str, list[DiffLine] | None, dict[str, tuple[Any, Any]]]


async def _preview(
    request: web.Request, session_id: str, action: str, version: str
) -> Preview | web.Response:
    """What the action will do: (the version it is confirmed against, the diff it applies
    to the state, counters a restore keeps); a page when it cannot be done."""
    db = console(request).db
    reveal = viewer(request).reveal
    new: dict[str, Any] | None
    try:
        if action == "restore":  # the restore's own plan: the preview is what it writes
            plan = await restore_plan(db, session_id, int(version))
            old, new = plan.current, plan.state
            seen, kept = str(plan.current_version), plan.kept
        else:
            record = await load_session(db, session_id)
            old, new = record.state, {} if action == "reset" else None
            seen, kept = str(record.version), {}
    except SessionNotFoundError:  # the action itself says so, with nothing changed
        return "", None, {}
    except VersionNotFoundError as exc:
        return page(request, "message.html", status=404, title="Version not kept", message=str(exc))
    except RestoreSchemaError as exc:
        return page(request, "message.html", status=409, title="Cannot restore", message=str(exc))
    if new is None:
        return seen, None, kept
    if not reveal:
        old, new = redact(old), redact(new)
    return seen, state_diff(old, new), kept


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
    version_text = str(form.get("version", ""))
    if action == "restore" and not version_text.isdigit():
        return page(
            request,
            "message.html",
            status=400,
            title="Which version?",
            message="Nothing was done: restore needs the version number to restore.",
        )
    seen_text = str(form.get("seen", ""))
    seen = int(seen_text) if seen_text.isdigit() else None
    try:
        if action == "restore":
            version = int(version_text)
            restored = await restore(
                db, session_id, version, actor=who.admin_id, expected_version=seen
            )
            new = restored.new_version
            done = f"Version {version} restored as version {new}." + "".join(
                f" {key} stays {now} (version {version} had {had})."
                for key, (had, now) in sorted(restored.plan.kept.items())
            )
            bound.info("web_action", version=version, new_version=new)
        elif action == "reset":
            new = await reset_session(db, session_id, actor=who.admin_id)
            done = f"State reset (now version {new}); the previous version is kept."
            bound.info("web_action", new_version=new)
        else:
            await delete_session(db, session_id, expected_version=seen)
            bound.info("web_action")
            return redirect(f"{console(request).base}/?done={quote('Session deleted.')}")
    except (SessionNotFoundError, VersionNotFoundError) as exc:
        bound.warning("web_action_failed", error=str(exc))
        return page(
            request,
            "message.html",
            status=404,
            title="Nothing to do",
            message=f"{exc}. Nothing was changed.",
        )
    except StaleVersionError as exc:
        bound.warning("web_action_stale", error=str(exc))
        now = f"now version {exc.actual}" if exc.actual is not None else "it is gone now"
        return page(
            request,
            "message.html",
            status=409,
            title="The session changed",
            message=(
                f"Nothing was done: the session changed ({now}) after you opened the "
                f"confirmation page at version {exc.expected}. Look at it and confirm again."
            ),
        )
    except RestoreSchemaError as exc:
        bound.warning("web_action_refused", error=str(exc))
        return page(request, "message.html", status=409, title="Not restored", message=str(exc))
    except StoreError as exc:
        bound.error("web_action_failed", error=redact_text(str(exc)))
        return page(
            request,
            "message.html",
            status=503,
            title="The action did not complete",
            message=f"{redact_text(str(exc))}. Look at the session before trying again.",
        )
    return redirect(_session_url(request, session_id, done))


def add_routes(app: web.Application) -> None:
    """The action routes: confirmation pages (GET) and the actions (POST)."""
    app.router.add_get("/session/confirm", confirm, name="confirm")
    app.router.add_post("/session/act", act, name="act")
