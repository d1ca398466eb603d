"""Enterprise Grid: an admin key written with the team id is an alias of the org key."""

from __future__ import annotations

from bots.admin.policy import AdminPolicy


def test_team_alias_grants_the_org_sessions_the_user_sees() -> None:
    """slack:T111:W222 matches W222 arriving under E111 from T111; the grant covers E111."""
    policy = AdminPolicy(frozenset({"slack:T111:W222"}))
    grant = policy.grant("slack", "E111", "W222", team="T111")
    assert grant is not None and grant.admin_id == "slack:T111:W222"
    assert grant.covers("slack:E111:C1") and not grant.covers("slack:E999:C1")


def test_the_alias_needs_the_team_the_event_came_from() -> None:
    """Without the team, or from another team, the T-key does not match the org."""
    policy = AdminPolicy(frozenset({"slack:T111:W222"}))
    assert policy.grant("slack", "E111", "W222") is None
    assert policy.grant("slack", "E111", "W222", team="T333") is None
    assert policy.grant("slack", "E111", "W333", team="T111") is None
