"""``statebot state rekey``: seal every stored session under the newest state key.

Rotation (docs/encryption.md): put a new key first in ``STATEBOT_STATE_KEYS`` and
restart every process with it, run this, then drop the old key once it reports that
everything is under the new one. The work is core's (:func:`core.governance.rekey.rekey`: in
place, under each live session's lease, idempotent); this prints what it did, and exits
1 when a value could not be opened (a key no longer configured: named by its id).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict

import click

from bots.app.build import build_store
from bots.app.cli_format import HELP_OPTIONS, plural
from bots.cli.store import refuse_durable_write, sqlite_file, store_choice, store_options
from bots.settings import Settings
from core.db.base import BaseDb
from core.db.maintenance import RekeyCounts
from core.exceptions import StoreError
from core.governance.rekey import RekeyReport, rekey
from core.redaction import redact_text


def open_sealed_store(db_url: str, redis_url: str | None) -> BaseDb:
    """The deployment's store (Redis over the durable one, or the durable one alone),
    built like the bots build it: with the ring of ``STATEBOT_STATE_KEYS``."""
    settings = Settings(redis_url=redis_url, statebot_db_url=db_url)
    if settings.statebot_state_keys is None:
        raise click.ClickException(
            "STATEBOT_STATE_KEYS is empty: state is not encrypted, so there is nothing to "
            "rekey (docs/encryption.md says how to turn encryption on)"
        )
    return build_store(settings)


def describe(counts: RekeyCounts) -> str:
    """One store's pass, in a sentence."""
    sealed = ", ".join(
        (
            plural(counts.values, "value"),
            plural(counts.data, "data text"),
            plural(counts.history, "history version"),
        )
    )
    line = (
        f"{counts.store}: {plural(counts.sessions, 'session')} looked at, "
        f"{counts.rewritten} rewritten; sealed again: {sealed}"
    )
    if counts.moved:
        line += f"; {counts.moved} changed meanwhile (run again)"
    return line


def conclusion(report: RekeyReport, ring: tuple[str, ...]) -> str:
    """What the operator may do next."""
    if report.failed:
        return "Some values could not be opened (above): add their keys back, then run again."
    if any(p.moved for p in report.passes):
        return "Some sessions changed while they were rewritten: run this again."
    others = [kid for kid in ring if kid != report.primary_id]
    if not others:
        return f"Everything stored is sealed under key {report.primary_id}."
    return (
        f"Everything stored is sealed under key {report.primary_id}; the other keys "
        f"({', '.join(others)}) may now be removed from STATEBOT_STATE_KEYS."
    )


@click.command("rekey", context_settings=HELP_OPTIONS)
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@click.pass_context
def rekey_cmd(ctx: click.Context, as_json: bool) -> None:
    """Seal again under the first STATEBOT_STATE_KEYS key every stored value, data text
    and history version still under an older key (or stored before encryption)."""
    choice = store_choice(ctx)
    db_url, redis_url = choice.db_url, choice.redis_url
    path = sqlite_file(db_url.strip())
    if path is not None and not path.exists():
        raise click.ClickException(f"no database file {str(path)!r} (from --db-url {db_url})")

    async def run() -> tuple[RekeyReport, tuple[str, ...]]:
        db = open_sealed_store(db_url, redis_url)
        try:
            await refuse_durable_write(db, choice)
            cipher = getattr(db, "cipher", None)
            ring: tuple[str, ...] = () if cipher is None else cipher.ring.ids
            return await rekey(db), ring
        finally:
            await db.aclose()

    try:
        report, ring = asyncio.run(run())
    except (StoreError, ValueError) as exc:
        raise click.ClickException(redact_text(str(exc))) from exc
    if as_json:
        data = {"primary_id": report.primary_id, "passes": [asdict(p) for p in report.passes]}
        click.echo(json.dumps(data, indent=2))
    else:
        for counts in report.passes:
            click.echo(describe(counts))
        for failure in report.failed:
            click.echo(f"  failed: {failure}", err=True)
        click.echo(conclusion(report, ring))
    if report.failed:
        ctx.exit(1)
