"""The Teams app package's manifest.json for the agents a process serves.

Teams shows the commands a manifest lists in its compose box (``@Statebot /taskboard
…``), so the list is generated from the agents, like Slack's manifest: one
``/<agent id>`` per agent plus ``/state`` (Teams takes at most 10 per list; the rest
are skipped with a note, and still work when typed). ``statebot manifest --platform
teams [--app MODULE:ATTR] [--url URL]`` prints it; deploy/teams-app/manifest.json is
its output for the ready agents (a test keeps them equal). The bot id is
TEAMS_APP_ID when set, else a placeholder to replace; the messaging endpoint itself
is configured on the Azure Bot (``URL/api/messages``), not here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from bots.adapters.base import AppManifest
from bots.chat.admin_seam import BUILTIN_COMMANDS
from bots.chat.registry import ChatAgent

__all__ = ["DEFAULT_URL", "PLACEHOLDER_ID", "teams_manifest"]

DEFAULT_URL = "https://bot.example.com"
#: replaced by the Azure Bot's Microsoft App ID (TEAMS_APP_ID)
PLACEHOLDER_ID = "00000000-0000-0000-0000-000000000000"
SCHEMA = "https://developer.microsoft.com/en-us/json-schemas/teams/v1.17/MicrosoftTeams.schema.json"
SCOPES = ["personal", "team", "groupChat"]
MAX_COMMANDS = 10
BUILTIN_TITLES = frozenset(f"/{c.name}" for c in BUILTIN_COMMANDS)


def _commands(agents: Mapping[str, ChatAgent]) -> tuple[list[dict[str, str]], list[str]]:
    commands: list[dict[str, str]] = []
    skipped: list[str] = []
    for agent_id, agent in agents.items():
        title = f"/{agent_id.lower()}"
        full = len(commands) >= MAX_COMMANDS - len(BUILTIN_COMMANDS)
        if full or len(title) > 32 or title in BUILTIN_TITLES:
            skipped.append(f"agent {agent_id!r} is not listed in the Teams command menu")
            continue
        about = " ".join(str(getattr(agent, "description", None) or "").split())
        commands.append(
            {"title": title, "description": (about or f"Ask the {agent_id} agent")[:128]}
        )
    commands += [{"title": f"/{c.name}", "description": c.description} for c in BUILTIN_COMMANDS]
    return commands, skipped


def teams_manifest(agents: Mapping[str, ChatAgent], *, url: str | None) -> AppManifest:
    """manifest.json (schema 1.17) for ``agents``, the developer pages at ``url``."""
    base = (url or DEFAULT_URL).rstrip("/")
    app_id = os.environ.get("TEAMS_APP_ID", "").strip() or PLACEHOLDER_ID
    commands, skipped = _commands(agents)
    manifest = {
        "$schema": SCHEMA,
        "manifestVersion": "1.17",
        "version": "1.0.0",
        "id": app_id,
        "developer": {
            "name": "Statebot",
            "websiteUrl": base,
            "privacyUrl": f"{base}/privacy",
            "termsOfUseUrl": f"{base}/terms",
        },
        "name": {"short": "Statebot", "full": "Statebot: stateful agents for your team"},
        "description": {
            "short": "Stateful AI agents: a task board, lists and reminders that persist.",
            "full": (
                "Statebot runs AI agents whose state (task boards, lists, reminders) is "
                "saved with every change. Mention @Statebot in a channel thread or a "
                "group chat, or write to it in a personal chat."
            ),
        },
        "icons": {"color": "color.png", "outline": "outline.png"},
        "accentColor": "#3B5BDB",
        "bots": [
            {
                "botId": app_id,
                "scopes": SCOPES,
                "supportsFiles": False,
                "isNotificationOnly": False,
                "commandLists": [{"scopes": SCOPES, "commands": commands}],
            }
        ],
        "permissions": ["identity", "messageTeamMembers"],
        "validDomains": [urlsplit(base).hostname or "bot.example.com"],
    }
    return AppManifest(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", tuple(skipped))
