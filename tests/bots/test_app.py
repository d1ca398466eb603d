"""Wiring: model, store and agents from settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bots.app import build_app, build_model, build_store
from bots.inbound import SlashCommand
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from core.db.sqlite import SqliteDb
from core.models.openai import OpenAIChat

OFFLINE: dict[str, Any] = {"openai_api_key": None, "openai_base_url": None, "redis_url": None}


def test_no_model_without_key_or_base_url() -> None:
    """Neither OPENAI_API_KEY nor OPENAI_BASE_URL: agents run commands only."""
    assert build_model(Settings(**OFFLINE)) is None


def test_openai_model_from_key_or_base_url() -> None:
    """A key or a base URL gives an OpenAIChat on STATEBOT_MODEL."""
    keyed = build_model(Settings(**{**OFFLINE, "openai_api_key": "sk-x", "statebot_model": "m1"}))
    assert isinstance(keyed, OpenAIChat) and keyed.id == "m1" and keyed.api_key == "sk-x"
    local = build_model(Settings(**{**OFFLINE, "openai_base_url": "http://127.0.0.1:9/v1"}))
    assert isinstance(local, OpenAIChat) and local.base_url == "http://127.0.0.1:9/v1"


async def test_durable_store_from_db_url(tmp_path: Path) -> None:
    """Without REDIS_URL the store is the one STATEBOT_DB_URL names."""
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    store = build_store(Settings(**{**OFFLINE, "statebot_db_url": url}))
    try:
        assert isinstance(store, SqliteDb)
    finally:
        await store.aclose()


async def test_redis_store_snapshots_to_the_durable_store() -> None:
    """With REDIS_URL the hot store is RedisDb over the durable one (no connection needed)."""
    from core.db.redis import RedisDb

    durable = InMemoryDb()
    store = build_store(
        Settings(**{**OFFLINE, "redis_url": "redis://127.0.0.1:1/0"}), durable=durable
    )
    assert isinstance(store, RedisDb)  # never connected, so nothing to close
    assert store.run_snapshotter


async def test_in_process_snapshotter_can_be_left_to_a_standalone_one() -> None:
    """STATEBOT_RUN_SNAPSHOTTER=false: the bot's RedisDb reads back but does not snapshot."""
    from core.db.redis import RedisDb

    settings = Settings(
        **{**OFFLINE, "redis_url": "redis://127.0.0.1:1/0", "statebot_run_snapshotter": False}
    )
    store = build_store(settings, durable=InMemoryDb())
    assert isinstance(store, RedisDb) and not store.run_snapshotter
    assert store.snapshot_to is not None


async def test_build_app_registers_the_catalog_with_aliases() -> None:
    """build_app gives a ChatService over the catalog agents, aliases included."""
    app = build_app(Settings(**OFFLINE), db=InMemoryDb())
    assert {"taskboard", "shopping"} <= set(app.service.agents)
    assert app.model is None
    cmd = SlashCommand("console", "local", "c", None, "u", "shopping", "add milk", "e")
    reply = await app.service.handle_command(cmd)
    assert "milk" in reply.text


async def test_shipped_redis_store_expires_idle_snapshotted_sessions() -> None:
    """The bots' RedisDb has a TTL (7 days by default; STATEBOT_REDIS_TTL=0 turns it off)."""
    from core.db.redis import RedisDb

    redis = {**OFFLINE, "redis_url": "redis://127.0.0.1:1/0"}
    store = build_store(Settings(**redis), durable=InMemoryDb())
    assert isinstance(store, RedisDb) and store.ttl == 7 * 86_400
    kept = build_store(Settings(**redis, statebot_redis_ttl=0), durable=InMemoryDb())
    assert isinstance(kept, RedisDb) and kept.ttl is None
