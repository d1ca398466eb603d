"""Shared fixtures: the machine's real Redis and PostgreSQL, one namespace per test.

Each test gets its own Redis key prefix and its own PostgreSQL schema, so runs never
collide. With ``CI`` set, a service that cannot be reached fails the test; elsewhere
the test is skipped with the reason.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

REDIS_URL = os.environ.get("STATEBOT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_URL = os.environ.get(
    "STATEBOT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture(autouse=True, scope="session")
def _builtin_platforms() -> None:
    """Every built-in platform's traits are known, as in every ``statebot`` process (its
    command group loads the adapters' registry): chat code looks them up by name."""
    from bots.adapters import registry

    registry.names()


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's own model settings must not leak into tests: with them an agent
    without ``model=`` would get the default model (core.models.default)."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "STATEBOT_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def require_service(name: str, host: str, port: int) -> None:
    """Fail under CI, skip elsewhere, when a real service is down."""
    if _reachable(host, port):
        return
    message = f"{name} is not reachable at {host}:{port}"
    if os.environ.get("CI"):
        pytest.fail(f"{message} (CI requires it)")
    pytest.skip(f"{message}; start the service to run this test")


@pytest.fixture(autouse=True)
def _logging_put_back() -> Iterator[None]:
    """A test that configures logging in this process (a serve, a command) leaves it as
    it found it: the next test's command output must not carry that test's handlers."""
    import logging

    import structlog

    from bots.ops import logging as bot_logging

    if bot_logging._configured:  # configured by an earlier test that did not put it back
        yield
        return
    saved = structlog.get_config()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    if bot_logging._configured:
        structlog.configure(**saved)
        root.handlers[:] = handlers
        root.setLevel(level)
        logging.captureWarnings(False)
        bot_logging._configured = False


@pytest.fixture(autouse=True)
def no_dotenv(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's ./.env (README: cp deploy/.env.example .env) never leaks into tests."""
    monkeypatch.setenv("STATEBOT_ENV_FILE", "")  # empty: Settings read no .env file


@pytest.fixture
def key_prefix() -> str:
    """A Redis key prefix no other test uses."""
    return f"statebot-test:{uuid.uuid4().hex[:12]}:"


@pytest.fixture
async def redis_url(key_prefix: str) -> AsyncIterator[str]:
    """URL of the real Redis; keys under this test's prefix are removed afterwards."""
    require_service("Redis", "127.0.0.1", 6379)
    yield REDIS_URL
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(REDIS_URL)
    try:
        # the prefix may be wrapped in a hash tag, so match it anywhere in the key
        async for key in client.scan_iter(match=f"*{key_prefix}*", count=1000):
            await client.delete(key)
    finally:
        await client.aclose()


@pytest.fixture
def postgres_schema() -> Iterator[tuple[str, str]]:
    """(database URL, schema name): a fresh schema in the real PostgreSQL, dropped after."""
    require_service("PostgreSQL", "127.0.0.1", 5432)
    import sqlalchemy as sa

    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield POSTGRES_URL, schema
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()
