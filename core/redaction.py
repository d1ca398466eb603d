"""The one list of credential names, shared by state dumps, log lines and error messages.

A key is sensitive when, ignoring case and separators (``-``, ``_``, ``.``, spaces,
camelCase), it *contains* one of the long credential words (``password``, ``secret``,
``token``, ``apikey``, ``privatekey``, …) or *is made of* one of the short ones as a
whole word (``pwd``, ``jwt``, ``auth``, ``pw``). Long words match inside other words
on purpose: hiding ``secretary`` is a small price, leaking ``db_secret2`` is not. Short
words only match whole, so ``author`` and ``keyboard`` stay readable.

``redact`` masks values under sensitive keys at any depth of a JSON-like value;
``redact_text`` masks ``key=value`` / ``key: value`` pairs, ``Bearer …`` credentials
and URL passwords inside free text (exception messages, log events).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

REDACTED = "***redacted***"

#: matched anywhere in the key with separators removed
SENSITIVE_WORDS: tuple[str, ...] = (
    "password",
    "passwd",
    "passphrase",
    "secret",  # client_secret, aws_secret_access_key, signing secret
    "token",  # access/refresh/id tokens, jwt_token
    "apikey",  # api_key, api-key, apiKey, x-api-key
    "authorization",  # Authorization, Proxy-Authorization headers
    "privatekey",
    "accesskey",  # aws_access_key_id
    "credential",
    "cookie",  # cookie, Set-Cookie, session_cookie
    "bearer",
)
#: matched only as a whole word of the key
SENSITIVE_SHORT_WORDS: frozenset[str] = frozenset({"pwd", "pw", "jwt", "auth"})

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_NOT_ALNUM = re.compile(r"[\W_]+")


@lru_cache(maxsize=4096)
def _builtin_sensitive(key: str) -> bool:
    compact = _NOT_ALNUM.sub("", key.lower())
    if any(word in compact for word in SENSITIVE_WORDS):
        return True
    return any(word.lower() in SENSITIVE_SHORT_WORDS for word in _WORD.findall(key))


def is_sensitive(key: object, extra: Iterable[str] = ()) -> bool:
    """True when ``key`` names a credential (built-in list, plus ``extra`` fnmatch patterns)."""
    name = str(key)
    if _builtin_sensitive(name):
        return True
    lowered = name.lower()
    return any(fnmatch.fnmatchcase(lowered, pattern.lower()) for pattern in extra)


def redact(value: Any, extra: Iterable[str] = ()) -> Any:
    """A copy of ``value`` with the values under sensitive keys replaced, at any depth."""
    patterns = tuple(extra)
    return _redact(value, patterns)


def _redact(value: Any, extra: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {
            k: REDACTED if is_sensitive(k, extra) else _redact(v, extra) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_redact(item, extra) for item in value]
    return value


_URL_PASSWORD = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*:)[^@/\s]+(?=@)")
_AUTH_SCHEME = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+", re.IGNORECASE)
_PAIR = re.compile(
    r"""(?P<q>["']?)(?P<key>[A-Za-z0-9][A-Za-z0-9_.-]*)(?P=q)(?P<sep>\s*[:=]\s*)"""
    r"""(?P<value>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s,;&}\])]+)"""
)


def _mask_pair(match: re.Match[str]) -> str:
    if not _builtin_sensitive(match["key"]):
        return match[0]
    value = match["value"]
    quote = value[0] if value[:1] in ("'", '"') else ""
    head = match[0][: match.start("value") - match.start()]
    return f"{head}{quote}{REDACTED}{quote}"


def redact_text(text: str) -> str:
    """``text`` with credential values masked; text without credentials is unchanged."""
    text = _URL_PASSWORD.sub(rf"\1{REDACTED}", text)
    text = _AUTH_SCHEME.sub(rf"\1 {REDACTED}", text)
    return _PAIR.sub(_mask_pair, text)
