"""``/state …`` as typed -> one :class:`StateRequest` (pure: nothing here runs anything).

    dump | reset [target]          history [n] [target]       diff v1 v2 [target]
    restore vN [target]            erase @user                usage [target]

``target`` is an agent name (the session of this conversation for that agent) or a raw
session id (it has a ``:``); without one, the channel's agent. Versions are written
``7`` or ``v7``. ``erase`` takes exactly one user mention in the syntax of the
command's platform (its traits' ``user_mention``: Slack ``<@U123>``, Discord
``<@123>``), never a name: names change and collide, ids do not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bots.platforms import traits_for

ACTIONS = ("dump", "reset", "history", "diff", "restore", "erase", "usage")
#: actions any user may run on their own conversation (admins: on any session in scope)
SELF_SERVICE = frozenset({"usage"})
#: actions that change or remove data, so they ask for a confirmation click first
CONFIRMED = frozenset({"restore", "erase"})
HISTORY_DEFAULT = 10
HISTORY_MAX = 50

USAGE = (
    "usage: /state dump | reset | history [n] | diff v1 v2 | restore vN | usage "
    "[agent or session id], or /state erase @user — the session of this conversation "
    f"for that agent (default: the channel's agent); history shows {HISTORY_DEFAULT} "
    f"versions by default, at most {HISTORY_MAX}"
)

_VERSION = re.compile(r"^[vV]?(\d{1,18})$")
_COUNT = re.compile(r"^\d{1,6}$")


class StateUsageError(ValueError):
    """A ``/state`` command that does not fit its grammar; the message says how to fix it."""


@dataclass(frozen=True, slots=True)
class StateRequest:
    """One parsed ``/state`` command."""

    action: str
    #: agent name or session id; None: the channel's agent
    target: str | None = None
    #: history: how many versions
    count: int = HISTORY_DEFAULT
    #: diff: (from, to); restore: (version,)
    versions: tuple[int, ...] = ()
    #: erase: the platform user id of the mentioned user
    user: str = ""


def parse_state(text: str, *, platform: str) -> StateRequest:
    """Parse the words after ``/state`` typed on ``platform`` (whose mention syntax
    ``erase`` reads); StateUsageError (with usage) when they do not fit."""
    words = text.split()
    if not words or words[0].lower() not in ACTIONS:
        raise StateUsageError(USAGE)
    action, rest = words[0].lower(), words[1:]
    if action == "erase":
        return _erase(rest, platform)
    if action == "history":
        count = HISTORY_DEFAULT
        if rest and _COUNT.match(rest[0]):
            count = int(rest.pop(0))
            if not 1 <= count <= HISTORY_MAX:
                raise StateUsageError(f"history shows 1 to {HISTORY_MAX} versions. {USAGE}")
        return StateRequest(action, _target(rest), count=count)
    wanted = {"diff": 2, "restore": 1}.get(action, 0)
    versions = tuple(_version(word) for word in rest[:wanted])
    if len(versions) < wanted:
        raise StateUsageError(f"{action} needs {_needs(wanted)}. {USAGE}")
    return StateRequest(action, _target(rest[wanted:]), versions=versions)


def _erase(rest: list[str], platform: str) -> StateRequest:
    traits = traits_for(platform)
    syntax = traits.user_mention if traits is not None else None
    mention = syntax.fullmatch(rest[0]) if syntax is not None and len(rest) == 1 else None
    if mention is None:
        raise StateUsageError(
            "erase needs exactly one @mention of the user (pick them from the mention "
            "list so it is their id, not a name); nothing was erased. " + USAGE
        )
    return StateRequest("erase", user=mention.group("id"))


def _version(word: str) -> int:
    found = _VERSION.match(word)
    if found is None:
        raise StateUsageError(f"{word!r} is not a version (write 7 or v7). {USAGE}")
    return int(found.group(1))


def _needs(count: int) -> str:
    return "a version (vN)" if count == 1 else "two versions (v1 v2)"


def _target(rest: list[str]) -> str | None:
    if len(rest) > 1:
        raise StateUsageError(f"too many words: {' '.join(rest)!r}. {USAGE}")
    return rest[0] if rest else None
