"""Wiring: settings -> model, store, agents -> ChatService.

Used by every entry point (console, Slack, Discord), so they all run the same agents
on the same store with the same routing.
"""

from __future__ import annotations

from dataclasses import dataclass

from bots.service import ChatService
from bots.settings import Settings
from core.db.base import BaseDb
from core.models.base import Model


def build_model(settings: Settings) -> Model | None:
    """OpenAIChat when a key or base URL is configured, else None (commands only)."""
    if not settings.model_configured:
        return None
    from core.models.openai import OpenAIChat

    api_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    return OpenAIChat(
        id=settings.statebot_model, api_key=api_key, base_url=settings.openai_base_url
    )


def build_durable_store(url: str) -> BaseDb:
    """The durable store named by a URL (``sqlite:///path``, ``postgresql://…``)."""
    from core.db.url import open_store

    return open_store(url)


def build_store(settings: Settings, *, durable: BaseDb | None = None) -> BaseDb:
    """RedisDb snapshotting to the durable store when REDIS_URL is set, else the durable one."""
    durable = durable or build_durable_store(settings.statebot_db_url)
    if settings.redis_url is None:
        return durable
    from core.db.redis import RedisDb

    return RedisDb(
        db_url=settings.redis_url,
        snapshot_to=durable,
        run_snapshotter=settings.statebot_run_snapshotter,
        ttl=settings.statebot_redis_ttl or None,
    )


@dataclass(frozen=True, slots=True)
class App:
    """Everything an entry point needs, built once."""

    settings: Settings
    service: ChatService
    db: BaseDb
    model: Model | None


def build_app(settings: Settings | None = None, *, db: BaseDb | None = None) -> App:
    """Build the model, the store, the catalog's agents and the ChatService."""
    from tools.catalog import COMMAND_ALIASES, create_agents

    settings = settings or Settings()
    model = build_model(settings)
    store = db or build_store(settings)
    agents = create_agents(model, store)
    service = ChatService(agents, settings=settings, aliases=COMMAND_ALIASES)
    return App(settings=settings, service=service, db=store, model=model)
