"""One-time sign-in tokens for the console when Sign in with Slack is not configured.

``statebot web --create-admin ADMIN_ID`` prints a token once; the file
(``STATEBOT_WEB_TOKENS_FILE``) keeps only its SHA-256 hash, the admin id and an expiry,
so reading the file never gives a working token. Redeeming a token removes it: it
signs in once. The file is rewritten atomically (write a temporary file, rename)
under an exclusive lock, so two console processes never redeem one token twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: how long a printed token can be used
TOKEN_SECONDS = 24 * 3600


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class AdminTokens:
    """Create and redeem one-time tokens kept hashed in a JSON file."""

    __slots__ = ("_clock", "path")

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock

    def create(self, admin_id: str, *, seconds: float = TOKEN_SECONDS) -> str:
        """A new token for ``admin_id``, valid once within ``seconds``."""
        token = secrets.token_urlsafe(32)
        with self._entries() as entries:
            entries.append(
                {"hash": _digest(token), "admin_id": admin_id, "expires": self._clock() + seconds}
            )
        return token

    def redeem(self, token: str) -> str | None:
        """The admin id of a valid token, which is used up; None for anything else."""
        wanted = _digest(token.strip())
        with self._entries() as entries:
            for entry in entries:
                if hmac.compare_digest(entry["hash"], wanted):
                    entries.remove(entry)
                    return str(entry["admin_id"])
        return None

    @contextlib.contextmanager
    def _entries(self) -> Iterator[list[dict[str, Any]]]:
        """The live entries under an exclusive lock, written back afterwards."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                entries = self._read()
                now = self._clock()
                live = [e for e in entries if e.get("expires", 0) > now]
                yield live
                self._write(live)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _read(self) -> list[dict[str, Any]]:
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return []
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"{self.path} is not a tokens file ({exc}); remove it") from None
        if not isinstance(data, list):
            raise ValueError(f"{self.path} is not a tokens file (expected a list); remove it")
        return [e for e in data if isinstance(e, dict) and "hash" in e and "admin_id" in e]

    def _write(self, entries: list[dict[str, Any]]) -> None:
        temporary = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(entries, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.path)
