"""The console's names (bots/web/names.py): a slow or failing platform never holds up a
page or breaks it; what it cannot name stays the id."""

from __future__ import annotations

import asyncio

import pytest

from bots.web import names as names_module
from bots.web.names import ConsoleNames, OfferedNames


class SlowSource:
    """A NameSource whose answers wait for ``release``; ``fail`` users raise."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.asked: list[str] = []

    async def user_name(self, workspace: str, user: str) -> str | None:
        self.asked.append(user)
        if user == "UBROKEN":
            raise ConnectionError("platform unreachable")
        await self.release.wait()
        return f"name-of-{user}"

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        await self.release.wait()
        return "general" if channel == "C1" else None


async def test_a_late_platform_leaves_ids_and_fills_the_cache_for_the_next_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the page budget the page gets no names (ids show); the lookups go on, the
    next page joins them instead of asking again, and gets the names."""
    monkeypatch.setattr(names_module, "PAGE_BUDGET", 0.01)
    source = SlowSource()
    names = ConsoleNames([OfferedNames("slack", source)])
    first = await names.labels(sessions=["slack:T1:C1:1.5", "slack:T1:@U9"], users=["slack:T1:U1"])
    assert first == {}
    source.release.set()
    monkeypatch.setattr(names_module, "PAGE_BUDGET", 60.0)  # joins the lookups under way
    second = await names.labels(sessions=["slack:T1:C1:1.5", "slack:T1:@U9"], users=["slack:T1:U1"])
    assert second == {
        "slack:T1:C1:1.5": "#general › thread 1.5",
        "slack:T1:@U9": "@name-of-U9",
        "slack:T1:U1": "name-of-U1",
    }
    assert sorted(source.asked) == ["U1", "U9"]
    await names.aclose()


async def test_failures_unknown_platforms_and_foreign_ids_stay_ids() -> None:
    """A lookup that raises, a platform with no source and an id that is no key give
    no label (the page shows the id); nothing raises."""
    source = SlowSource()
    source.release.set()
    names = ConsoleNames([OfferedNames("slack", source)])
    labels = await names.labels(
        sessions=["discord:G1:C1", "not a key", "slack:T1:C2"],
        users=["slack:T1:UBROKEN", "discord:G1:U1", None, "bad"],
    )
    assert labels == {}
    assert await ConsoleNames().labels(users=["slack:T1:U1"]) == {}
