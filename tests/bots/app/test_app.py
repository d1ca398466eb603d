"""Wiring: model, store and agents from settings."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from bots import serve
from bots.app.build import AppLoadError, build_app, build_model, build_store, load_app_agents
from bots.chat.service import ConfigError
from bots.inbound import SlashCommand
from bots.settings import Settings
from core.agent import Agent
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


# -- bring your own agent -------------------------------------------------------------
def _notes_agent(name: str = "Notes") -> Agent:
    def add_note(session_state: dict[str, Any], text: str) -> str:
        """Add a note."""
        session_state.setdefault("notes", []).append(text)
        return f"noted: {text}"

    return Agent(name=name, tools=[add_note], db=InMemoryDb())


def _module(monkeypatch: pytest.MonkeyPatch, **attributes: Any) -> str:
    module = types.ModuleType("user_bot_for_tests")
    module.__dict__.update(attributes)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return module.__name__


def test_load_app_agents_accepts_dict_agent_and_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dict, a single agent (named by its name) and a zero-argument factory all load."""
    agent = _notes_agent()
    name = _module(monkeypatch, table={"notes": agent}, one=agent, make=lambda: {"n": agent})
    assert load_app_agents(f"{name}:table") == {"notes": agent}
    assert load_app_agents(f"{name}:one") == {"notes": agent}
    assert load_app_agents(f"{name}:make") == {"n": agent}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_colon", "is not of the form module.path:attribute"),
        ("no_such_module_xyz:agents", "no module named 'no_such_module_xyz'"),
        ("{mod}:missing", "has no attribute 'missing'"),
        ("{mod}:number", "expected a dict of name to Agent/Team/Workflow"),
        ("{mod}:bad_dict", "every value must be an Agent, Team or Workflow"),
        ("{mod}:empty", "the dict of agents is empty"),
        ("{mod}:needs_args", "calling the factory failed"),
    ],
)
def test_load_app_agents_explains_what_is_wrong(
    monkeypatch: pytest.MonkeyPatch, spec: str, message: str
) -> None:
    """A missing module or attribute, or a value of the wrong type, is a clear AppLoadError."""
    mod = _module(
        monkeypatch, number=3, bad_dict={"x": "not an agent"}, empty={}, needs_args=lambda a: a
    )
    with pytest.raises(AppLoadError, match=re.escape(message)):
        load_app_agents(spec.format(mod=mod))


async def test_build_app_routes_to_user_agents(tmp_path: Path) -> None:
    """User agents replace the catalog; the first is the default; commands run their tools."""
    agent = _notes_agent()
    app = build_app(Settings(**OFFLINE), db=InMemoryDb(), agents={"notes": agent})
    assert list(app.service.agents) == ["notes"]
    assert app.settings.statebot_default_agent == "notes"
    command = SlashCommand(
        platform="console",
        workspace="local",
        channel="c",
        thread=None,
        user="u",
        command="notes",
        text="add_note hello",
        event_id="e1",
        is_dm=True,
    )
    reply = await app.service.handle_command(command)
    assert reply.text == "noted: hello"


def test_build_app_keeps_an_explicit_default_agent_honest() -> None:
    """STATEBOT_DEFAULT_AGENT naming an agent the app lacks: an app of one agent uses it,
    an app of several is a ConfigError naming where the setting came from."""
    settings = Settings(**{**OFFLINE, "statebot_default_agent": "taskboard"})
    app = build_app(settings, db=InMemoryDb(), agents={"notes": _notes_agent()})
    assert app.settings.statebot_default_agent == "notes"
    two = {"notes": _notes_agent(), "more": _notes_agent()}
    with pytest.raises(ConfigError, match=r"from the settings passed in.*agents: notes, more"):
        build_app(settings, db=InMemoryDb(), agents=two)


def test_serve_refuses_unknown_platform_and_misplaced_options() -> None:
    """serve() names a bad platform, and refuses socket=/session= where they do not apply."""
    agent = _notes_agent()
    with pytest.raises(ValueError, match="unknown platform 'irc'"):
        serve(agent, platform="irc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="socket= applies to platform='slack' only"):
        serve(agent, platform="console", socket=True)
    with pytest.raises(ValueError, match="session= applies to platform='console' only"):
        serve(agent, platform="slack", session="x")
