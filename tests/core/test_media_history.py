"""A run's images and files are kept in its history entry by reference, never as bytes.

On every store: the stored session text holds the reference (kind, name, type, size,
id) and not the base64 of the image; a later run's context says what was attached.
"""

from __future__ import annotations

import base64

from core.agent import Agent
from core.db.base import BaseDb
from core.media import File, Image
from core.models.scripted import ScriptedModel
from core.run.history import SessionData
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store
from tests.media_samples import png_bytes


async def test_history_keeps_references_not_bytes(store: BaseDb) -> None:
    """The stored data names the image and file; neither their bytes nor base64 are in it."""
    png = png_bytes(40, noisy=True)
    model = ScriptedModel(["A noisy square.", "You sent noise.png earlier."])
    agent = Agent(model=model, db=store, session_id="s", add_history_to_context=True)
    image = Image(content=png, mime_type="image/png", name="noise.png", id="F0IMG")
    notes = File(content="milk\neggs\n", mime_type="text/plain", name="list.txt", id="F0TXT")
    await agent.arun("What is it?", images=[image], files=[notes])

    record = await store.aload("s")
    assert record is not None
    assert base64.b64encode(png).decode()[:200] not in record.data
    assert "milk\neggs" not in record.data  # a file's text is not kept either
    (run,) = SessionData.decode(record.data).runs
    assert run.media == (
        {
            "kind": "image",
            "name": "noise.png",
            "type": "image/png",
            "size": len(png),
            "id": "F0IMG",
        },
        {"kind": "file", "name": "list.txt", "type": "text/plain", "size": 10, "id": "F0TXT"},
    )
    assert all("image" not in str(m.get("content")) for m in run.transcript)

    await agent.arun("What did I send?")
    earlier = next(m for m in model.requests[1].messages if m.from_history)
    assert earlier.role == "user" and earlier.images is None
    assert earlier.content == (
        "What is it?\n[attached: noise.png (image/png, 5 KB), list.txt (text/plain, 10 B)]"
    )


async def test_a_teams_leader_and_its_member_see_the_image() -> None:
    """Team.arun(images=...): the leader's question carries the image, and so does the
    task a member is given (Agno passes a run's media to the members it delegates to)."""
    from core.models.scripted import tool_call
    from core.team import Team

    png = png_bytes()
    leader = ScriptedModel([tool_call("delegate_task_to_member", member_id="eye", task="look")])
    seeing = ScriptedModel(["A red square."])
    eye = Agent(model=seeing, name="Eye")
    team = Team(members=[eye], model=leader, mode="route")
    out = await team.arun("What is it?", images=[Image(content=png, mime_type="image/png")])
    assert out.content == "A red square."
    asked = leader.requests[0].messages[-1]
    assert asked.images is not None and asked.images[0].content == png
    member_question = seeing.requests[0].messages[-1]
    assert member_question.images is not None and member_question.images[0].content == png
