"""The /state grammar: bounded history counts, versions, mentions only for erase."""

from __future__ import annotations

import pytest

from bots.admin.parse import HISTORY_DEFAULT, HISTORY_MAX, StateRequest, StateUsageError
from bots.admin.parse import parse_state as parse_on


def parse_state(text: str, platform: str = "slack") -> StateRequest:
    """The grammar as a Slack command reads it (erase's mentions are the platform's)."""
    return parse_on(text, platform=platform)


def test_history_count_defaults_and_is_bounded() -> None:
    """`history` shows 10 by default, takes n up to the maximum, and a target after it."""
    assert parse_state("history").count == HISTORY_DEFAULT
    request = parse_state(f"history {HISTORY_MAX} taskboard")
    assert (request.count, request.target) == (HISTORY_MAX, "taskboard")
    for bad in ("history 0", f"history {HISTORY_MAX + 1}", "history 3 a b"):
        with pytest.raises(StateUsageError, match="usage: /state"):
            parse_state(bad)


def test_diff_and_restore_take_versions_with_or_without_v() -> None:
    """`diff v1 2` and `restore v3 slack:T1:C1` parse; missing or bad versions get usage."""
    assert parse_state("diff v1 2").versions == (1, 2)
    restore = parse_state("restore v3 slack:T1:C1")
    assert (restore.versions, restore.target) == ((3,), "slack:T1:C1")
    for bad in ("diff v1", "restore", "restore three", "diff 1 x"):
        with pytest.raises(StateUsageError):
            parse_state(bad)


@pytest.mark.parametrize(
    ("platform", "text", "user"),
    [
        ("slack", "erase <@U0BOB0001>", "U0BOB0001"),
        ("slack", "erase <@U0BOB0001|bob>", "U0BOB0001"),
        ("discord", "erase <@123>", "123"),
        ("discord", "erase <@!123>", "123"),
        ("console", "erase <@ann>", "ann"),
    ],
)
def test_erase_takes_one_platform_mention(platform: str, text: str, user: str) -> None:
    """Slack `<@U…>` and Discord `<@123>` / `<@!123>` name the user by id."""
    assert parse_state(text, platform).user == user


@pytest.mark.parametrize("text", ["erase bob", "erase @bob", "erase", "erase <@U1> <@U2>"])
def test_erase_refuses_names_and_anything_but_one_mention(text: str) -> None:
    """A plain name (or nothing, or two users) is refused with usage: names are not ids."""
    with pytest.raises(StateUsageError, match="nothing was erased"):
        parse_state(text)


@pytest.mark.parametrize(
    ("platform", "text"),
    [("discord", "erase <@U0BOB0001>"), ("discord", "erase <@1|bob>"), ("nowhere", "erase <@1>")],
)
def test_erase_reads_only_its_platforms_mentions(platform: str, text: str) -> None:
    """Another platform's syntax is no mention here; a platform without traits has none."""
    with pytest.raises(StateUsageError, match="nothing was erased"):
        parse_state(text, platform)
