"""``cache_results``: a tool's results kept per (tool, arguments) for ``cache_ttl`` seconds.

In process memory by default (bounded: the oldest entries go first). With
``cache_dir`` results are also written there as one JSON file per key, so a restarted
process finds them; a result that is not JSON stays in memory only. Errors are never
cached. What goes into the key is decided by :mod:`core.tools.call`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Final

from core.utils.log import logger

#: Agno's default ``cache_ttl`` (seconds)
DEFAULT_CACHE_TTL = 3600.0
#: entries one tool keeps in memory
MAX_ENTRIES = 1024

#: what :meth:`ResultCache.get` returns for a miss
MISS: Final = object()


class ResultCache:
    """Results by key, each valid for ``ttl`` seconds; thread-safe (sync tools run on threads)."""

    __slots__ = ("_entries", "_lock", "clock", "directory", "ttl")

    def __init__(
        self,
        *,
        ttl: float = DEFAULT_CACHE_TTL,
        directory: str | os.PathLike[str] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not ttl > 0:
            raise ValueError(f"cache_ttl must be positive, not {ttl}")
        self.ttl = float(ttl)
        self.directory = Path(directory) if directory is not None else None
        #: wall clock, because entries on disk outlive the process
        self.clock = clock
        self._entries: OrderedDict[str, tuple[float, object]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(*parts: object) -> str:
        """A stable key for the parts (JSON, with repr for anything else)."""
        text = json.dumps(parts, sort_keys=True, default=repr, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, key: str) -> object:
        """The cached value (a copy), or :data:`MISS` when absent or expired."""
        now = self.clock()
        with self._lock:
            entry = self._entries.get(key)
        if entry is None:
            entry = self._read_file(key)
        if entry is None or now - entry[0] >= self.ttl:
            return MISS
        return copy.deepcopy(entry[1])

    def put(self, key: str, value: object) -> None:
        """Remember a successful result (a copy, so later edits do not leak in)."""
        try:
            stored = copy.deepcopy(value)
        except Exception:  # a value that cannot be copied is simply not cached
            return
        entry = (self.clock(), stored)
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > MAX_ENTRIES:
                self._entries.popitem(last=False)
        self._write_file(key, entry)

    def _path(self, key: str) -> Path | None:
        return None if self.directory is None else self.directory / f"{key}.json"

    def _read_file(self, key: str) -> tuple[float, object] | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            return float(record["created"]), record["result"]
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:  # unreadable: a miss
            logger.warning("tool_cache_unreadable", path=str(path), error=str(exc))
            return None

    def _write_file(self, key: str, entry: tuple[float, object]) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            text = json.dumps({"created": entry[0], "result": entry[1]}, ensure_ascii=False)
        except (TypeError, ValueError):
            return  # not JSON: kept in memory only
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # write then rename, so a reader never sees half a file
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except OSError as exc:  # a full disk costs the cache entry, never the call
            logger.warning("tool_cache_write_failed", path=str(path), error=str(exc))
