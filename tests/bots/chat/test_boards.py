"""Which board a reply is about: said only when a board-keeping agent is not the channel's."""

from __future__ import annotations

from bots.chat.boards import THREAD_BOARD, USER_BOARD, board_note, noted
from bots.chat.cards import Card
from bots.chat.replies import Reply
from core.db.in_memory import InMemoryDb
from core.testing import tool_call
from tests.bots.conftest import ServiceFactory, command, message
from tools.catalog import create_agents


def test_note_follows_the_session_and_the_agents_own_scope() -> None:
    """Taskboard: thread and user sessions are named, the channel's is not; others never."""
    agents = create_agents(None, InMemoryDb())
    board, shopping = agents["taskboard"], agents["shopping"]
    assert board_note(board, "slack:T1:C1") == ""
    assert board_note(board, "slack:T1:C1:1700.1") == THREAD_BOARD
    assert board_note(board, "slack:T1:@U1") == USER_BOARD
    assert board_note(shopping, "slack:T1:C1:1700.1") == ""


def test_noted_reply_says_it_in_text_and_card_footer() -> None:
    """The note goes under the text and into the card's footer; approvals are left alone."""
    reply = noted(Reply("Added #1.", card=Card("Task board", (), footer="1 task")), THREAD_BOARD)
    assert reply.text == f"Added #1.\n_{THREAD_BOARD}_"
    assert reply.card is not None and reply.card.footer == f"1 task · {THREAD_BOARD}"


async def test_user_scoped_board_says_so_in_every_reply(make_service: ServiceFactory) -> None:
    """Configured per user, the Taskboard's replies and its card name "your own board"."""
    service = make_service(statebot_agent_scopes={"taskboard": "user"})
    reply = await service.handle_command(command("taskboard", 'add "Mine"'))
    assert reply.text.endswith(f"_{USER_BOARD}_")
    listed = await service.handle_command(command("taskboard", "list"))
    assert listed.card is not None and listed.card.footer.endswith(USER_BOARD)


async def test_channel_board_is_shared_by_mentions_in_threads_and_commands(
    make_service: ServiceFactory,
) -> None:
    """By default a mention in a thread and /taskboard list see one board, with no note."""

    service = make_service([tool_call("add_task", title="From a thread"), "Added."])
    answer = await service.handle_message(message("add it", thread="1700.9"))
    assert answer is not None and answer.text == "Added."
    listed = await service.handle_command(command("taskboard", "list"))
    assert "From a thread" in listed.text and THREAD_BOARD not in listed.text
