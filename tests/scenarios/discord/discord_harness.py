"""A logged-in discord.py client under test, fed gateway events by hand."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bots.adapters.discord.client import StatebotDiscord
from core.agent import Agent
from core.testing import ScriptedModel

# tasks discord.py starts per event: handlers, app commands, button clicks, modal submits
_HANDLER_TASKS = (
    "discord.py: on_",
    "CommandTree-invoker",
    "discord-ui-dynamic-item-",
    "discord-ui-view-dispatch-",
    "discord-ui-modal-dispatch-",
)


class Harness:
    """A logged-in client, its service and model, and a way to feed gateway events."""

    def __init__(self, client: StatebotDiscord, model: ScriptedModel) -> None:
        self.client = client
        self.model = model
        # exceptions that escaped a handler (discord.py would log and swallow them)
        self.handler_errors: list[BaseException] = []

        async def on_error(event: str, /, *args: Any, **kwargs: Any) -> None:
            self.handler_errors.append(sys.exc_info()[1] or RuntimeError(event))

        async def on_tree_error(interaction: Any, error: BaseException) -> None:
            self.handler_errors.append(error)

        client.on_error = on_error  # type: ignore[method-assign]
        client.tree.on_error = on_tree_error  # type: ignore[method-assign]

    def gateway(self, event: str, data: dict[str, Any]) -> None:
        """Dispatch a gateway event the way discord.py's websocket does."""
        self.client._connection.parsers[event](data)

    async def settle(self, timeout: float = 10.0) -> None:
        """Wait until every event handler and app command discord.py started is done."""
        deadline = time.monotonic() + timeout
        me = asyncio.current_task()
        while time.monotonic() < deadline:
            busy = [
                t
                for t in asyncio.all_tasks()
                if t is not me and not t.done() and t.get_name().startswith(_HANDLER_TASKS)
            ]
            if not busy:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("discord.py handlers still running")

    async def state(self, session_id: str) -> dict[str, Any]:
        """The taskboard state of a session."""
        agent = self.client.service.agents["taskboard"]
        assert isinstance(agent, Agent)
        return await agent.aget_session_state(session_id)


MakeDiscord = Callable[..., Awaitable[Harness]]
