"""The console's small parts: tokens, settings, the search form, diffs, scope."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from bots.settings import Settings
from bots.web.access import viewer_for
from bots.web.config import WebConfig, WebConfigError
from bots.web.diffs import changed_keys, state_diff
from bots.web.search_form import SearchError, SearchForm
from bots.web.tokens import AdminTokens
from tests.bots.web.conftest import SECRET


def test_token_works_once_and_is_stored_hashed(tmp_path: Path) -> None:
    """A token signs in once; the file holds its hash, never the token."""
    tokens = AdminTokens(tmp_path / "t.json")
    token = tokens.create("slack:T1:U1")
    assert token not in (tmp_path / "t.json").read_text()
    assert tokens.redeem(token) == "slack:T1:U1"
    assert tokens.redeem(token) is None


def test_token_expires(tmp_path: Path) -> None:
    """A token past its time is refused and dropped from the file."""
    now = [1000.0]
    tokens = AdminTokens(tmp_path / "t.json", clock=lambda: now[0])
    token = tokens.create("slack:T1:U1", seconds=60)
    now[0] += 61
    assert tokens.redeem(token) is None
    assert json.loads((tmp_path / "t.json").read_text()) == []


def test_broken_tokens_file_is_named(tmp_path: Path) -> None:
    """A tokens file that is not ours is an error naming it, not an empty list."""
    (tmp_path / "t.json").write_text("{oops")
    with pytest.raises(ValueError, match="is not a tokens file"):
        AdminTokens(tmp_path / "t.json").redeem("x")


def test_config_needs_a_secret() -> None:
    """Without STATEBOT_WEB_SECRET the console does not start, saying how to make one
    (weak secrets are refused by the setting: tests/bots/settings/test_secrets.py)."""
    with pytest.raises(WebConfigError, match="STATEBOT_WEB_SECRET is not set") as caught:
        WebConfig.from_settings(Settings())
    assert "secrets.token_urlsafe(32)" in str(caught.value)


def test_reveal_ids_must_be_admins() -> None:
    """Only admins can be allowed to see secrets."""
    with pytest.raises(WebConfigError, match="not in STATEBOT_ADMIN_IDS"):
        WebConfig.from_settings(
            Settings(
                statebot_web_secret=SecretStr(SECRET),
                statebot_web_reveal_ids="slack:T1:U1",
            )
        )


def test_search_form_builds_escaped_prefixes() -> None:
    """Platform, workspace and channel become escaped key components; a bare user id
    becomes a user key of that workspace."""
    form = SearchForm.read(
        {"platform": "slack", "workspace": "T:1", "channel": "C1", "user": "U1", "x": "y"}
    )
    query = form.query("slack:")
    assert query.id_prefix == "slack:T%3A1:C1"
    assert query.user == "slack:T%3A1:U1"
    assert query.scope == "slack:"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"workspace": "T1"}, "needs its platform"),
        ({"platform": "slack", "channel": "C1"}, "needs its platform and workspace"),
        ({"user": "U1"}, "full user key"),
        ({"status": "odd"}, "Status is one of"),
    ],
)
def test_search_form_says_what_is_missing(params: dict[str, str], message: str) -> None:
    """An incomplete search is an error saying what to add."""
    with pytest.raises(SearchError, match=message):
        SearchForm.read(params).query("")


def test_diff_lines_and_changed_keys() -> None:
    """The diff marks added and removed lines; changed keys name what differs."""
    lines = state_diff({"a": 1, "b": [1]}, {"a": 1, "b": [1, 2]})
    assert [line.text.strip() for line in lines if line.kind == "added"] == ["1,", "2"]
    assert [line.text.strip() for line in lines if line.kind == "removed"] == ["1"]
    assert changed_keys({"a": 1, "b": 2}, {"a": 1, "c": 3}) == ["b", "c"]
    assert changed_keys(None, {"a": 1}) == ["a"]


def test_viewer_scope_follows_the_admin_id() -> None:
    """A pinned admin sees one workspace, a wildcard admin the whole platform, an id no
    longer configured nothing."""
    ids = frozenset({"slack:T1:U1", "slack:*:U2"})
    pinned = viewer_for("slack:T1:U1", ids, ())
    everywhere = viewer_for("slack:*:U2", ids, ())
    assert pinned is not None and pinned.covers("slack:T1:C1")
    assert not pinned.covers("slack:T10:C1") and not pinned.covers("slack:T2:C1")
    assert everywhere is not None and everywhere.covers("slack:T9:C1")
    assert not everywhere.covers("discord:G1:C1")
    assert viewer_for("slack:T1:U9", ids, ()) is None
