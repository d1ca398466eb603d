"""Thread catch-up: a first mention reads the thread's earlier messages, bounded, once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bots.chat.catch_up import EarlierMessage
from bots.chat.service import ChatService
from core.db.in_memory import InMemoryDb
from core.models.scripted import ScriptedModel
from tests.bots.chat.test_conversation_context import Directory
from tests.bots.conftest import ServiceFactory, message

THREAD = [
    EarlierMessage("U2", "the deploy of <#C7> broke last night"),
    EarlierMessage("U1", "<@U2> which service?"),
    EarlierMessage("UBOT", "I can track that as a task.", from_bot=True),
    EarlierMessage("U2", "billing, since 02:00"),
]


class Thread:
    """An EarlierMessages source over a list, counting fetches and the limit asked."""

    def __init__(self, messages: Sequence[EarlierMessage] = THREAD) -> None:
        self.messages = list(messages)
        self.limits: list[int] = []

    async def fetch(self, limit: int) -> Sequence[EarlierMessage]:
        self.limits.append(limit)
        return self.messages[-limit:]


class Broken:
    async def fetch(self, limit: int) -> Sequence[EarlierMessage]:
        raise ConnectionError("platform down")


def _service(make_service: ServiceFactory, turns: list[str], **settings: Any) -> ChatService:
    settings.setdefault("statebot_agent_scopes", {"taskboard": "thread"})
    service = make_service(turns, **settings)
    service.use_names("slack", Directory())
    return service


def _model(service: ChatService) -> ScriptedModel:
    model = service.agents["taskboard"].model  # type: ignore[union-attr]
    assert isinstance(model, ScriptedModel)
    return model


def _user_texts(service: ChatService, request: int = -1) -> list[str]:
    return [str(m.content) for m in _model(service).requests[request].messages if m.role == "user"]


async def test_first_mention_reads_the_thread_with_names_and_mentions(
    make_service: ServiceFactory,
) -> None:
    """The model reads the earlier messages as the history reads, before the question."""
    service = _service(make_service, ["On it."])
    reply = await service.handle_message(message("what broke?"), earlier=Thread())
    assert reply is not None and reply.text.startswith("On it.")
    caught_up, question = _user_texts(service)
    assert caught_up.splitlines() == [
        "Earlier messages in this thread, before you were asked (oldest first):",
        "Bo: the deploy of #general broke last night",
        "Ana: @Bo which service?",
        "You: I can track that as a task.",
        "Bo: billing, since 02:00",
    ]
    assert question == "Ana: what broke?"


async def test_catch_up_is_read_once_and_never_stored(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """The second mention does not fetch again, nor does a new process; no run stores it."""
    thread = Thread()
    service = _service(make_service, ["On it.", "Still billing."])
    await service.handle_message(message("what broke?"), earlier=thread)
    await service.handle_message(message("and now?"), earlier=thread)
    assert thread.limits == [50]  # the second mention found the session: no fetch
    assert not any("Earlier messages" in text for text in _user_texts(service))
    restarted = _service(make_service, ["Billing again."])  # same store, new process
    await restarted.handle_message(message("again?"), earlier=thread)
    assert thread.limits == [50]
    session = await service.agents["taskboard"].aget_session(message("x").keys.session_id)  # type: ignore[union-attr]
    assert session is not None
    inputs = [run.input.input_content for run in session.runs or []]  # type: ignore[union-attr]
    assert inputs and not any("Earlier messages" in str(text) for text in inputs)


async def test_catch_up_is_bounded_by_count_and_characters(make_service: ServiceFactory) -> None:
    """The latest messages within both bounds; the header says how many were left out."""
    long_thread = Thread([EarlierMessage("U2", f"message {n:03d}") for n in range(200)])
    service = _service(make_service, ["ok"], statebot_catch_up=30, statebot_catch_up_chars=120)
    await service.handle_message(message("summary?"), earlier=long_thread)
    assert long_thread.limits == [30]
    lines = _user_texts(service)[0].splitlines()
    assert lines[1:] == [f"Bo: message {n}" for n in range(193, 200)]  # 7 x 16 <= 120
    assert lines[0].endswith("; 23 older not shown):")


async def test_an_agent_turns_catch_up_off_or_sets_its_own_count(
    make_service: ServiceFactory,
) -> None:
    """``agent.catch_up = 0`` fetches nothing; ``= 2`` asks for two messages."""
    thread = Thread()
    service = _service(make_service, ["a"])
    service.agents["taskboard"].catch_up = 0  # type: ignore[union-attr]
    await service.handle_message(message("hi"), earlier=thread)
    assert thread.limits == []
    two = _service(make_service, ["b"])
    two.agents["taskboard"].catch_up = 2  # type: ignore[union-attr]
    await two.handle_message(message("hi", thread="1700.2"), earlier=thread)
    assert thread.limits == [2]
    assert _user_texts(two)[0].splitlines()[1:] == [
        "You: I can track that as a task.",
        "Bo: billing, since 02:00",
    ]


async def test_a_channel_scoped_agent_does_not_catch_up(make_service: ServiceFactory) -> None:
    """A channel's board is not the thread's conversation: nothing is fetched."""
    thread = Thread()
    service = _service(make_service, ["a"], statebot_agent_scopes={})  # taskboard: channel
    await service.handle_message(message("hi"), earlier=thread)
    assert thread.limits == []


async def test_a_failed_fetch_leaves_the_answer_alone(make_service: ServiceFactory) -> None:
    """The platform failing to list the thread is logged; the question is still answered."""
    service = _service(make_service, ["Answered anyway."])
    reply = await service.handle_message(message("hi"), earlier=Broken())
    assert reply is not None and reply.text.startswith("Answered anyway.")
    assert _user_texts(service) == ["Ana: hi"]


class _Sink:
    """A StreamSink keeping the texts it was shown."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def text(self, so_far: str) -> None:
        self.texts.append(so_far)

    async def tool(self, name: str, running: bool) -> None:
        pass


async def test_a_streamed_first_answer_reads_the_thread_too(make_service: ServiceFactory) -> None:
    """Streaming runs the model in a task of its own; the catch-up still reaches it, once."""
    thread = Thread()
    service = _service(make_service, ["Streamed."])
    sink = _Sink()
    await service.handle_message(message("what broke?"), earlier=thread, sink=sink)
    assert sink.texts and sink.texts[-1].startswith("Streamed.")
    assert _user_texts(service)[0].startswith("Earlier messages in this thread")
    assert thread.limits == [50]
