"""Help texts: pure functions over the registry, shared by chat and console."""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from bots.chat.commands import CommandError, alias_tool, resolve_tool, split_words, usage
from bots.chat.registry import ChatAgent, tools_of
from bots.chat.undo import HELP_LINE, SHADOWED, has_own_undo

STATE_LINE = (
    "• /state usage — your usage today against the budget (this conversation, you, this "
    "channel). Admins: /state dump | reset | history [n] | diff v1 v2 | restore vN "
    "[agent or session id], /state erase @user (restore and erase ask to confirm)"
)
#: how alike a typed word and a command must be to suggest it (difflib's ratio)
SUGGEST_CUTOFF = 0.7
SYNTAX = (
    "Arguments bind in the order shown, or by name with name=value; "
    'quote text that has spaces, e.g. "two words".'
)


def aliases_by_tool(aliases: Mapping[str, str]) -> dict[str, list[str]]:
    """tool name -> its aliases, sorted; presets shown (``done (status=done)``)."""
    out: dict[str, list[str]] = {}
    for alias, value in sorted(aliases.items()):
        preset = value.split()[1:]
        shown = f"{alias} ({' '.join(preset)})" if preset else alias
        out.setdefault(alias_tool(value), []).append(shown)
    return out


def agent_help(
    agent_id: str, agent: ChatAgent, aliases: Mapping[str, str], *, prefix: str | None = None
) -> str:
    """The commands of one agent with their parameters and aliases."""
    prefix = f"/{agent_id} " if prefix is None else prefix
    lines = [f"*{agent_id}*" + (f" — {agent.description}" if agent.description else "")]
    tools = tools_of(agent)
    if not tools:
        lines.append("No commands: talk to it in free text.")
        lines.append(HELP_LINE.format(prefix=prefix))
        return "\n".join(lines)
    alias_map = aliases_by_tool(aliases)
    for name, tool in tools.items():
        summary = (tool.description or "").strip().splitlines()
        line = f"• {prefix}{usage(tool)}"
        if alias_map.get(name):
            line += f"  (also: {', '.join(alias_map[name])})"
        if summary:
            line += f" — {summary[0]}"
        lines.append(line)
    own_undo = has_own_undo(tools, aliases)
    lines.append(SHADOWED if own_undo else HELP_LINE.format(prefix=prefix))
    lines.append(SYNTAX)
    return "\n".join(lines)


def command_names(agent: ChatAgent, aliases: Mapping[str, str]) -> list[str]:
    """Every word that runs a command of ``agent``: tool names, then aliases."""
    tools = list(tools_of(agent))
    return tools + sorted(
        a for a, value in aliases.items() if alias_tool(value) in tools and a not in tools
    )


def offline_commands(agent_id: str, agent: ChatAgent) -> str:
    """The one-line list of commands that work without a model."""
    tools = list(tools_of(agent))
    if not tools:
        return "none for this agent"
    return f"/{agent_id} " + ", ".join(tools) + f" (details: /{agent_id} help)"


def overview(agents: Mapping[str, ChatAgent]) -> str:
    """All agents, one line each."""
    lines = ["Agents:"]
    for agent_id, agent in agents.items():
        description = f" — {agent.description}" if getattr(agent, "description", None) else ""
        lines.append(f"• {agent_id}{description}  (/{agent_id} help)")
    lines.append(f"Every agent also takes `undo` (e.g. /{next(iter(agents), 'agent')} undo).")
    lines.append(STATE_LINE)
    return "\n".join(lines)


def command_error(
    agent_id: str, agent: ChatAgent, aliases: Mapping[str, str], exc: CommandError, text: str
) -> str:
    """The reply to a command that did not parse: the unknown command named, else the error."""
    try:
        first = split_words(text)[0]
    except (CommandError, IndexError):
        first = ""
    if first and resolve_tool(first, tools_of(agent), aliases) is None:
        known = command_names(agent, aliases)
        names = ", ".join(known) or "none"
        close = difflib.get_close_matches(first.lower(), known, n=1, cutoff=SUGGEST_CUTOFF)
        guess = f" Did you mean `/{agent_id} {close[0]}`?" if close else ""
        return (
            f"Unknown command {first!r} for /{agent_id}.{guess} Commands: {names}. "
            f"Try /{agent_id} help."
        )
    return f"{exc}\nNothing was changed. Try /{agent_id} help."
