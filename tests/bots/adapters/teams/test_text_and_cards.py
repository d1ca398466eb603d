"""Safe output and the Adaptive Cards (pure): what user and model text may become."""

from __future__ import annotations

import json

from bots.adapters.teams.cards import approval_card, board_card, fits
from bots.adapters.teams.text import safe_text
from bots.chat.approvals import Approval
from bots.chat.cards import Card, Control, Controls, Form, FormField, Item, Section, decode_action
from bots.chat.names import user_reference
from bots.platforms import traits_for

ANA = "6e7b2c1a-9f1e-4b7d-8c2f-0a1b2c3d4e5f"
TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"


def test_no_at_mention_of_a_channel_or_team_survives() -> None:
    text, entities = safe_text(
        'ping <at>General</at> and <at id="19:abc@thread.skype">Team</at> <b>now</b>'
    )
    assert "<at>" not in text and "<b>" not in text and entities == []
    assert "&lt;at&gt;General&lt;/at&gt;" in text


def test_a_user_mention_becomes_an_entity_with_their_name() -> None:
    markup = user_reference(f"teams:{TENANT}:{ANA}", platform="teams", workspace=TENANT)
    text, entities = safe_text(f"Approved by {markup}.", {ANA: "Ana Ruiz"})
    assert text == "Approved by <at>Ana Ruiz</at>."
    assert entities == [
        {
            "type": "mention",
            "text": "<at>Ana Ruiz</at>",
            "mentioned": {"id": ANA, "name": "Ana Ruiz"},
        }
    ]


def test_someone_of_another_tenant_is_named_by_key_not_mentioned() -> None:
    other = user_reference(f"teams:other-tenant:{ANA}", platform="teams", workspace=TENANT)
    assert other == f"`teams:other-tenant:{ANA}`"


def test_links_show_their_url() -> None:
    text, _ = safe_text(
        "see [the docs](https://evil.example/x) or [https://a.example](https://a.example)"
    )
    assert text == "see the docs (https://evil.example/x) or https://a.example"


def test_incoming_mentions_read_as_names() -> None:
    traits = traits_for("teams")
    assert traits is not None and traits.user_mention is not None
    match = traits.user_mention.search(f'tell <at id="{ANA}">Ana Ruiz</at>')
    assert match is not None and (match["id"], match["label"]) == (ANA, "Ana Ruiz")


def _board() -> Card:
    done = Control("Done", "update_task_status", '{"status":"done","task_id":1}', "primary")
    delete = Control("Delete", "remove_task", '{"task_id":1}', "danger", confirm="Delete #1?")
    form = Form("Add task", "add_task", (FormField("title", "Title", required=True),))
    controls = Controls(
        (Item("#1 Buy [milk](https://x.example) · open", (done, delete), short="#1"),),
        view="list_tasks",
        form=form,
        agent_id="taskboard",
        session_id="teams:T:C",
    )
    return Card("Task board", (Section("Open", ("#1 Buy milk",)),), "1 task", controls)


def test_a_board_card_carries_each_button_s_click() -> None:
    card = board_card(_board())
    body = json.dumps(card)
    assert card["version"] == "1.5" and "Buy milk (https://x.example)" in body
    item_actions = card["body"][2]["actions"]
    done, delete = item_actions
    assert done["type"] == "Action.Execute" and done["style"] == "positive"
    click = decode_action(done["data"]["value"], platform="teams", workspace="T", user="u")
    assert click is not None and (click.tool, click.arguments) == (
        "update_task_status",
        {"status": "done", "task_id": 1},
    )
    assert delete["type"] == "Action.ShowCard"  # asks first
    assert delete["card"]["actions"][0]["data"]["statebot"] == "card"
    [add] = card["actions"]
    assert add["card"]["body"][0]["id"] == "field:title" and add["card"]["body"][0]["isRequired"]


def test_an_approval_card_has_approve_and_reject() -> None:
    approval = Approval("board", "teams:T:C:1", "run-1", f"teams:T:{ANA}", ("call-1",))
    card = approval_card("Approve clear_board({})?", approval)
    yes, no = card["actions"]
    assert (yes["title"], no["title"]) == ("Approve", "Reject")
    assert yes["data"] == {"statebot": "approval", "approve": True, "approval": approval.encode()}
    assert no["data"]["approve"] is False


def test_a_board_too_big_for_one_message_does_not_fit() -> None:
    big = _board()
    items = tuple(
        Item(f"#{n} " + "x" * 200, big.controls.items[0].controls, short=f"#{n}")  # type: ignore[union-attr]
        for n in range(200)
    )
    controls = Controls(items, "list_tasks", agent_id="taskboard", session_id="teams:T:C")
    assert fits(board_card(_board()))
    assert not fits(board_card(Card("Task board", (), "200 tasks", controls)))
