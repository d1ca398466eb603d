"""Wiring: settings -> model, store, agents -> ChatService.

Used by every entry point (console, Slack, Discord), so they all run the same agents
on the same store with the same routing.

Bring your own agent: ``build_app(agents=...)`` serves a user's agents, teams or
workflows instead of the ready catalog. ``load_app_agents("pkg.module:attr")`` is the
one place a ``--app`` spec is turned into them; the attribute is a dict of name to
agent, a single agent (named by its ``name``, else ``id``), or a zero-argument
factory returning either. User agents keep their own ``db``, as in Agno. As with
uvicorn, the current directory is importable, so ``--app my_bot:agents`` finds
``./my_bot.py``.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import structlog

from bots.app.budgets import apply_budget
from bots.app.mcp import McpServers, attach_mcp_servers
from bots.app.service import chat_service
from bots.chat.registry import ChatAgent
from bots.chat.schedules import PlatformSchedules, ScheduledRuns
from bots.chat.service import ChatService, ConfigError
from bots.settings import Settings
from bots.settings.origin import setting_origin
from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.models.base import Model
from core.schedule import (
    Scheduler,
    ScheduleSettings,
    configure,
    current_settings,
    schedule_store,
)

if TYPE_CHECKING:
    from core.governance.retention import RetentionPolicy

log = structlog.get_logger(__name__)

#: what ``build_app(agents=...)`` and ``serve()`` accept
AgentSource: TypeAlias = Mapping[str, ChatAgent] | ChatAgent | Callable[[], object]


class AppLoadError(ValueError):
    """A ``--app`` spec that names no usable agents; the message says what to fix."""


def build_model(settings: Settings) -> Model | None:
    """OpenAIChat when a key or base URL is configured, else None (commands only)."""
    if not settings.model_configured:
        return None
    from core.models.openai import OpenAIChat

    api_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    return OpenAIChat(
        id=settings.statebot_model, api_key=api_key, base_url=settings.openai_base_url
    )


def state_cipher(settings: Settings) -> StateCipher | None:
    """What seals state at rest (``STATEBOT_STATE_KEYS``, docs/encryption.md); None: off."""
    keys = settings.statebot_state_keys
    return None if keys is None else StateCipher.from_setting(keys.get_secret_value())


def build_durable_store(url: str, cipher: StateCipher | None = None) -> BaseDb:
    """The durable store named by a URL (``sqlite:///path``, ``postgresql://…``)."""
    from core.db.url import open_store

    return open_store(url, cipher=cipher)


def build_store(
    settings: Settings, *, durable: BaseDb | None = None, key_prefix: str = "statebot:"
) -> BaseDb:
    """RedisDb snapshotting to the durable store when REDIS_URL is set, else the durable one.

    Both are given the key ring of ``STATEBOT_STATE_KEYS`` (the same one: the snapshot
    copies sealed values as they are). ``key_prefix``: of the Redis keys (``statebot
    snapshotter --key-prefix``).
    """
    cipher = state_cipher(settings)
    durable = durable or build_durable_store(settings.statebot_db_url, cipher)
    if settings.redis_url is None:
        return durable
    from core.db.redis import RedisDb

    return RedisDb(
        db_url=settings.redis_url,
        snapshot_to=durable,
        run_snapshotter=settings.statebot_run_snapshotter,
        ttl=settings.statebot_redis_ttl or None,
        cipher=cipher,
        key_prefix=key_prefix,
    )


def start_snapshots(
    store: BaseDb,
    *,
    retention: RetentionPolicy | None = None,
    clock: Callable[[], float] = time.time,
) -> BaseDb:
    """Start the background snapshotter of a RedisDb that may snapshot in this process.

    Only a process serving chat does this (``build_app``); admin commands that build a
    store flush what they wrote when they close it. With a ``retention`` policy that has
    rules (``STATEBOT_RETENTION_*_DAYS``), it enforces it like ``statebot snapshotter``:
    one bounded pass at start, then hourly (docs/erasure.md). ``clock`` is the wall
    clock retention measures idleness with.
    """
    from bots.app.retention import retention_pass
    from core.db.protocols import HotStore

    if isinstance(store, HotStore) and store.run_snapshotter:
        store.start_snapshotter(retention=retention_pass(store, retention, clock=clock))
    return store


def serving_store(settings: Settings) -> BaseDb:
    """The store of a process serving chat: :func:`build_store`, its snapshotter started
    with the retention policy of ``STATEBOT_RETENTION_*_DAYS``."""
    from bots.app.retention import policy_from_settings

    return start_snapshots(build_store(settings), retention=policy_from_settings(settings))


@dataclass(frozen=True, slots=True)
class App:
    """Everything an entry point needs, built once.

    ``scheduler`` fires scheduled runs (reminders) through ``bots.chat.schedules``; it is
    started by ``build_app`` in a serving process (its own store, a running event
    loop, ``STATEBOT_SCHEDULER`` on); the console, which builds its app before its
    loop runs, starts it itself (``bots/adapters/console/reminders.py``).
    ``await app.scheduler.stop()`` at shutdown. ``mcp``: the MCP servers'
    connections (``STATEBOT_MCP_SERVERS``, bots/app/mcp.py); ``await app.mcp.aclose()``
    at shutdown.
    """

    settings: Settings
    service: ChatService
    db: BaseDb
    model: Model | None
    scheduler: Scheduler | None = None
    mcp: McpServers | None = None


def schedule_settings(settings: Settings) -> ScheduleSettings:
    """The scheduling knobs the environment sets (the rest keep core's defaults)."""
    return ScheduleSettings(
        default_tz=settings.statebot_default_tz, max_late=float(settings.statebot_schedule_max_late)
    )


def build_scheduler(
    service: ChatService, db: BaseDb, *, clock: Callable[[], float] | None = None
) -> Scheduler:
    """The firing loop over ``db``: runs go through ``service``, replies to its deliveries.

    Only schedules whose platform this process can post to are claimed (the adapters
    register their deliveries on ``service.deliveries``).
    """
    runs = ScheduledRuns(service, service.deliveries)
    due = PlatformSchedules(
        schedule_store(db), service.deliveries.accepts, max_late=current_settings().max_late
    )
    if clock is None:
        return Scheduler(db, runs.fire, store=due)
    return Scheduler(db, runs.fire, store=due, clock=clock)


def _start_scheduler(scheduler: Scheduler, db: BaseDb) -> None:
    """Start the loop once the store answers, when there is a running event loop.

    Serving processes build the app inside their loop and then check the stores; the
    first poll waits for that, so a store down at start is the one line that check
    prints, not a scheduler warning before it.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return

    async def when_ready() -> None:
        while True:
            try:
                await db.aping()
                break
            except Exception:  # the entry point reports it; retry quietly until it is up
                await asyncio.sleep(scheduler.settings.poll_interval)
        scheduler.start()

    _starting.add(loop.create_task(when_ready(), name="scheduler-start"))
    for task in [t for t in _starting if t.done()]:
        _starting.discard(task)


#: start tasks in flight (kept referenced so they are not collected)
_starting: set[asyncio.Task[None]] = set()


def build_app(
    settings: Settings | None = None,
    *,
    db: BaseDb | None = None,
    agents: AgentSource | None = None,
) -> App:
    """Build the model, the store, the agents (the catalog's, or ``agents``) and the service."""
    settings = settings or Settings()
    configure(schedule_settings(settings))
    model = build_model(settings)
    serving = db is None  # a process serving chat builds its own store; tests pass theirs
    store = db or serving_store(settings)
    if agents is None:
        from tools.catalog import COMMAND_ALIASES, create_agents

        catalog = apply_budget(create_agents(model, store), settings)
        mcp = attach_mcp_servers(catalog, settings, store)
        service = chat_service(catalog, settings=settings, aliases=COMMAND_ALIASES)
    else:
        mine = apply_budget(agents_from(agents, "agents"), settings)
        mcp = attach_mcp_servers(mine, settings, store)
        settings = _default_agent_among(settings, mine)
        service = chat_service(mine, settings=settings)
    scheduler = build_scheduler(service, store)
    if serving and settings.statebot_scheduler:
        _start_scheduler(scheduler, store)
    if serving:
        mcp.start()
    return App(
        settings=settings, service=service, db=store, model=model, scheduler=scheduler, mcp=mcp
    )


def load_app_agents(spec: str) -> dict[str, ChatAgent]:
    """The agents ``module.path:attribute`` names; AppLoadError saying what is wrong."""
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise AppLoadError(f"{spec!r} is not of the form module.path:attribute")
    if os.getcwd() not in sys.path:  # like uvicorn: a module next to you is found
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise AppLoadError(
                f"no module named {exc.name!r} (is it on PYTHONPATH, or installed?)"
            ) from None
        raise  # the module exists but one of its own imports fails: show that error
    try:
        value = getattr(module, attribute)
    except AttributeError:
        raise AppLoadError(f"module {module_name!r} has no attribute {attribute!r}") from None
    return agents_from(value, spec)


def agents_from(value: object, where: str) -> dict[str, ChatAgent]:
    """``value`` (a dict, one agent, or a zero-argument factory of either) as agents by name."""
    if callable(value) and not isinstance(value, ChatAgent):
        try:
            value = value()
        except TypeError as exc:
            raise AppLoadError(f"{where}: calling the factory failed: {exc}") from None
    if isinstance(value, ChatAgent):
        return {_name_of(value, where): value}
    if isinstance(value, Mapping):
        wrong = [str(k) for k, v in value.items() if not isinstance(v, ChatAgent)]
        if wrong or not all(isinstance(k, str) and k for k in value):
            raise AppLoadError(
                f"{where}: every value must be an Agent, Team or Workflow under a non-empty "
                f"name; not: {', '.join(wrong) or 'a key'}"
            )
        if not value:
            raise AppLoadError(f"{where}: the dict of agents is empty")
        return dict(value)
    raise AppLoadError(
        f"{where}: expected a dict of name to Agent/Team/Workflow, one of them, or a "
        f"zero-argument factory returning either; got {type(value).__name__}"
    )


def _name_of(agent: ChatAgent, where: str) -> str:
    name = getattr(agent, "name", None) or getattr(agent, "id", None)
    if not name:
        raise AppLoadError(f"{where}: the agent has no name or id; give it name=...")
    return str(name).strip().lower().replace(" ", "_")


def _default_agent_among(settings: Settings, agents: Mapping[str, ChatAgent]) -> Settings:
    """Settings whose default agent is one of the app's ``agents``.

    Unset: the app's first agent. Set (often by a ``.env`` copied for the ready agents,
    ``STATEBOT_DEFAULT_AGENT=taskboard``) to an agent the app does not define: an app of
    one agent answers with that one, and a warning names where the setting came from;
    with several, nothing can be guessed, so ConfigError names the file and line.
    """
    default = settings.statebot_default_agent
    if default in agents:
        return settings
    if "statebot_default_agent" not in settings.model_fields_set:
        return settings.model_copy(update={"statebot_default_agent": next(iter(agents))})
    origin = setting_origin("STATEBOT_DEFAULT_AGENT")
    if len(agents) == 1:
        only = next(iter(agents))
        log.warning(
            "default_agent_not_in_app",
            setting=f"STATEBOT_DEFAULT_AGENT={default}",
            source=origin,
            using=only,
        )
        return settings.model_copy(update={"statebot_default_agent": only})
    raise ConfigError(
        f"STATEBOT_DEFAULT_AGENT={default!r} (from {origin}) is not an agent of the app "
        f"(agents: {', '.join(agents)}); set it to one of them or remove it"
    )
