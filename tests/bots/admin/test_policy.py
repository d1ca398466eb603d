"""Who may do what (``bots.admin.policy``): decided once, by immutable platform user ids."""

from __future__ import annotations

import ast
from pathlib import Path

from bots.admin.policy import AdminPolicy, allows, grant_for, grant_of_admin_id
from bots.chat.approvals import Approval, Decision

ADMINS = frozenset({"slack:T1:UADMIN", "discord:*:42"})


def _decision(user: str, requester: str = "slack:T1:UASK") -> Decision:
    approval = Approval("board", "slack:T1:C1:1.1", "run1", requester, ("c1",))
    return Decision("slack", "T1", user, True, approval)


def test_a_pinned_admin_covers_their_workspace_only() -> None:
    """``slack:T1:U`` acts on ``slack:T1:`` sessions, not on T10's nor another platform's."""
    grant = grant_for("slack", "T1", "UADMIN", ADMINS)
    assert grant is not None and grant.admin_id == "slack:T1:UADMIN"
    assert allows(grant, "slack:T1:C1:1.1") and not allows(grant, "slack:T10:C1")
    assert grant_for("slack", "T2", "UADMIN", ADMINS) is None


def test_a_wildcard_admin_covers_every_workspace_of_its_platform() -> None:
    """``discord:*:42`` is admin in every guild, never on Slack."""
    grant = grant_for("discord", "G9", "42", ADMINS)
    assert grant is not None and allows(grant, "discord:G1:C1")
    assert not allows(grant, "slack:T1:C1") and grant_for("slack", "T1", "42", ADMINS) is None


def test_no_grant_allows_nothing() -> None:
    """A user who is no admin may act on no session."""
    assert not allows(grant_for("slack", "T1", "UOTHER", ADMINS), "slack:T1:C1")


def test_a_signed_in_admin_id_gets_the_same_grant() -> None:
    """The web console's sign-in by admin id scopes like chat; an unknown id gets nothing."""
    pinned = grant_of_admin_id("slack:T1:UADMIN", ADMINS)
    assert pinned == grant_for("slack", "T1", "UADMIN", ADMINS)
    everywhere = grant_of_admin_id("discord:*:42", ADMINS)
    assert everywhere is not None and everywhere.scope == "discord:"
    assert grant_of_admin_id("slack:T1:UOTHER", ADMINS) is None


def test_an_owned_platform_makes_its_users_admins_of_their_own_sessions() -> None:
    """The console's users own its store, and only that platform's sessions."""
    policy = AdminPolicy(ADMINS)
    assert policy.grant("console", "local", "me") is None
    policy.owned_by_its_user("console")
    grant = policy.grant("console", "local", "me")
    assert allows(grant, "console:local:s1") and not allows(grant, "slack:T1:C1")


def test_a_paused_run_is_decided_by_its_asker_or_an_admin() -> None:
    """The asker and an admin may decide; anyone else may not."""
    policy = AdminPolicy(ADMINS)
    assert policy.may_decide(_decision("UASK"))
    assert policy.may_decide(_decision("UADMIN"))
    assert not policy.may_decide(_decision("UOTHER"))


BOTS = Path(__file__).resolve().parents[3] / "bots"
POLICY = BOTS / "admin" / "policy.py"


def _admin_id_lookups(path: Path) -> list[str]:
    """``x in …admin_ids`` / ``not in``: a module deciding itself who is an admin."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        for op, right in zip(node.ops, node.comparators, strict=True):
            named = right.attr if isinstance(right, ast.Attribute) else getattr(right, "id", "")
            if isinstance(op, ast.In | ast.NotIn) and named.endswith("admin_ids"):
                found.append(f"{path.relative_to(BOTS.parent)}:{node.lineno}")
    return found


def test_only_the_policy_looks_users_up_in_the_admin_ids() -> None:
    """One place decides who is an admin: every other module (chat, web, the CLI's
    sign-in tokens) asks the policy, so a change of the rule reaches all of them."""
    assert _admin_id_lookups(POLICY)  # the check sees the policy's own lookups
    others = [
        hit
        for path in sorted(BOTS.rglob("*.py"))
        if path != POLICY
        for hit in _admin_id_lookups(path)
    ]
    assert others == []
