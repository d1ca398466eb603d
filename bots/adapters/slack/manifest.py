"""The Slack app manifest for the agents a process serves.

Slack delivers a slash command only if the app's manifest declares it, so the
manifest is generated from the agents, not written by hand: one ``/<agent id>`` per
agent (the chat service answers any case of an id) plus ``/state``, ``/memory`` and
``/connect``, everything else as ``statebot slack`` needs it. ``statebot manifest
[--app MODULE:ATTR]`` prints it (through ``SlackAdapter.manifest``);
deploy/slack-app-manifest.yaml is its output for the ready agents (a test keeps them
equal). Written as text, not through a YAML library, so it keeps its comments; every
value that could need quoting is a JSON string, which YAML reads as the same string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from bots.adapters.base import AppManifest
from bots.adapters.slack.settings import SLACK_BOT_SCOPES
from bots.chat.admin_seam import BUILTIN_COMMANDS
from bots.chat.registry import ChatAgent, tools_of

__all__ = ["DEFAULT_URL", "SlashCommand", "slack_manifest", "slash_commands"]

#: the placeholder a user replaces with the public URL of ``statebot slack``
DEFAULT_URL = "https://bot.example.com"
#: a name Slack accepts after the slash: lower case, no spaces, 32 characters with it
_COMMAND_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,30}")
BUILTIN_NAMES = frozenset(c.name for c in BUILTIN_COMMANDS)


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One declared command: its name without the slash, description and usage hint."""

    name: str
    description: str
    usage_hint: str


def _usage(agent: ChatAgent, aliases: Mapping[str, str]) -> str:
    words = list(aliases) or list(tools_of(agent))
    return " | ".join([*words, "undo", "help"])


def slash_commands(
    agents: Mapping[str, ChatAgent], aliases: Mapping[str, Mapping[str, str]] | None = None
) -> tuple[list[SlashCommand], list[str]]:
    """One command per agent whose id Slack accepts as a command name, then the built-ins;
    and a sentence for each agent left out."""
    commands: list[SlashCommand] = []
    skipped: list[str] = []
    for agent_id, agent in agents.items():
        name = agent_id.lower()
        if name in BUILTIN_NAMES or not _COMMAND_NAME.fullmatch(name):
            why = (
                "is a built-in command's"
                if name in BUILTIN_NAMES
                else "is not a Slack command name"
            )
            skipped.append(f"agent {agent_id!r} has no slash command: {name!r} {why}")
            continue
        description = " ".join(str(getattr(agent, "description", None) or "").split())
        commands.append(
            SlashCommand(
                name=name,
                description=description or f"Ask the {agent_id} agent",
                usage_hint=_usage(agent, (aliases or {}).get(agent_id, {})),
            )
        )
    commands += [SlashCommand(c.name, c.description, c.usage) for c in BUILTIN_COMMANDS]
    return commands, skipped


def slack_manifest(
    agents: Mapping[str, ChatAgent],
    aliases: Mapping[str, Mapping[str, str]] | None = None,
    *,
    url: str = DEFAULT_URL,
    socket: bool = False,
) -> AppManifest:
    """The manifest for ``agents`` served at ``url`` (Socket Mode: ``socket``)."""
    commands, skipped = slash_commands(agents, aliases)
    events_url = url.rstrip("/") + "/slack/events"
    names = ", ".join(agents)
    lines = [_HEADER.rstrip("\n"), "display_information:", "  name: Statebot"]
    lines.append(f"  description: {json.dumps(f'Stateful AI agents ({names}) for this workspace')}")
    lines.append(_FEATURES.rstrip("\n"))
    lines.append("  # one command per agent (each also takes undo and help), then the built-ins:")
    lines.append("  # /state, /memory, /connect")
    lines.append("  slash_commands:")
    for command in commands:
        lines += [
            f"    - command: /{command.name}",
            f"      url: {events_url}",
            f"      description: {json.dumps(command.description)}",
            f"      usage_hint: {json.dumps(command.usage_hint)}",
            "      should_escape: false",
        ]
    lines += [
        "oauth_config:",
        "  # the install flow's redirect (statebot slack serves it when SLACK_CLIENT_ID is set)",
        "  redirect_urls:",
        f"    - {url.rstrip('/')}/slack/oauth_redirect",
        "  # SLACK_SCOPES defaults to this list (bots/adapters/slack/settings.py SLACK_BOT_SCOPES)",
        "  scopes:",
        "    bot:",
        *(f"      - {scope}" for scope in SLACK_BOT_SCOPES),
        "settings:",
        "  event_subscriptions:",
        f"    request_url: {events_url}",
        _EVENTS.rstrip("\n"),
        "  # Approve / Reject buttons and board buttons (block_actions)",
        "  interactivity:",
        "    is_enabled: true",
        f"    request_url: {events_url}",
        "  org_deploy_enabled: false",
        f"  socket_mode_enabled: {'true' if socket else 'false'}",
        "  token_rotation_enabled: false",
    ]
    return AppManifest(text="\n".join(lines) + "\n", skipped=tuple(skipped))


_HEADER = """\
# Slack app manifest for `statebot slack`, generated by `statebot manifest` from the
# agents served (`statebot manifest --app MODULE:ATTR` for your own). At
# https://api.slack.com/apps choose "Create New App" > "From an app manifest", pick
# the workspace and paste it; after adding or renaming an agent, generate it again and
# paste it under "App Manifest" (Slack delivers only the commands it lists).
#
# HTTP mode (default): replace https://bot.example.com with the public HTTPS URL in
# front of `statebot slack` (port 3000), or pass --url; events, slash commands and
# button clicks all arrive at POST /slack/events.
# Socket Mode (no public URL, --socket): the URLs are ignored; create an app-level
# token with connections:write (SLACK_APP_TOKEN) and run `statebot slack --socket`.
#
# Many workspaces (SLACK_CLIENT_ID/SLACK_CLIENT_SECRET instead of SLACK_BOT_TOKEN): keep
# HTTP mode, the redirect URL below, and share <URL>/slack/install; app_uninstalled
# and tokens_revoked remove an installation (docs/chat-setup.md, "Many workspaces").
# token_rotation_enabled may be turned on: expiring tokens are refreshed with their
# stored refresh token.
"""

_FEATURES = """\
features:
  app_home:
    home_tab_enabled: true    # "Your tasks" across channels, published on app_home_opened
    messages_tab_enabled: true
    messages_tab_read_only_enabled: false
  bot_user:
    display_name: statebot
    always_online: true
"""

_EVENTS = """\
    bot_events:
      - app_mention
      - message.channels
      - message.groups
      - message.im
      - message.mpim
      - app_uninstalled     # install flow: forget the workspace's installation
      - tokens_revoked      # install flow: forget revoked tokens
      - app_home_opened     # the Home tab: the user's own tasks across channels
"""
