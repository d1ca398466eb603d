"""Chat turns carry the thread's history, name their authors and render mentions readably."""

from __future__ import annotations

from bots.chat.names import NameCache
from core.models.scripted import ScriptedModel
from tests.bots.conftest import ServiceFactory, message


class Directory:
    """A NameSource answering from dicts, counting lookups."""

    def __init__(self) -> None:
        self.users = {"U1": "Ana", "U2": "Bo", "W9": "Cy"}
        self.channels = {"C7": "general"}
        self.lookups = 0

    async def user_name(self, workspace: str, user: str) -> str | None:
        self.lookups += 1
        return self.users.get(user)

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        self.lookups += 1
        return self.channels.get(channel)


def _model(service: object) -> ScriptedModel:
    agent = service.agents["taskboard"]  # type: ignore[attr-defined]
    assert isinstance(agent.model, ScriptedModel)
    return agent.model


def _turns(service: object) -> list[tuple[str, str | None]]:
    """The user/assistant messages of the last model request."""
    return [
        (m.role, m.content)
        for m in _model(service).requests[-1].messages
        if m.role in ("user", "assistant")
    ]


async def test_a_follow_up_sees_the_earlier_turns(make_service: ServiceFactory) -> None:
    """The second message of a thread reaches the model after the first question and answer."""
    service = make_service(["Hello Ana.", "You said hi."])
    await service.handle_message(message("hi"))
    await service.handle_message(message("what did I say?"))
    assert _turns(service) == [
        ("user", "hi"),
        ("assistant", "Hello Ana."),
        ("user", "what did I say?"),
    ]


async def test_history_is_bounded_by_the_setting(make_service: ServiceFactory) -> None:
    """STATEBOT_HISTORY_RUNS=1 keeps only the last earlier turn; 0 turns history off."""
    service = make_service(["a", "b", "c"], statebot_history_runs=1)
    for text in ("one", "two", "three"):
        await service.handle_message(message(f"{text}"))
    assert _turns(service) == [("user", "two"), ("assistant", "b"), ("user", "three")]
    off = make_service(["x", "y"], statebot_history_runs=0)
    await off.handle_message(message("one", thread="9.9"))
    await off.handle_message(message("two", thread="9.9"))
    assert _turns(off) == [("user", "two")]


async def test_author_named_and_mentions_rendered(make_service: ServiceFactory) -> None:
    """The model reads "Ana: ask @Cy in #general", not raw ids; shared history keeps user keys."""
    service = make_service(["ok", "ok"])
    directory = Directory()
    service.use_names("slack", directory)
    await service.handle_message(message("ask <@W9> in <#C7> or <#C8|random>"))
    assert _turns(service)[-1] == ("user", "Ana: ask @Cy in #general or #random")
    await service.handle_message(message("and me?", user="U2"))
    assert _turns(service) == [
        ("user", "slack:T1:U1: Ana: ask @Cy in #general or #random"),
        ("assistant", "ok"),
        ("user", "Bo: and me?"),
    ]


async def test_names_are_cached_with_a_ttl() -> None:
    """One lookup per user per TTL; an expired entry is looked up again."""
    now = [0.0]
    directory = Directory()
    cache = NameCache(directory, ttl=60, clock=lambda: now[0])
    assert [await cache.user_name("T1", "U1") for _ in range(3)] == ["Ana"] * 3
    assert directory.lookups == 1
    now[0] = 61.0
    assert await cache.user_name("T1", "U1") == "Ana" and directory.lookups == 2


async def test_a_failing_lookup_leaves_the_id() -> None:
    """A lookup that raises gives None (the raw id is shown), never an error."""

    class Broken(Directory):
        async def user_name(self, workspace: str, user: str) -> str | None:
            raise OSError("users.info down")

    assert await NameCache(Broken()).user_name("T1", "U1") is None
