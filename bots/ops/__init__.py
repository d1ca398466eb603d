"""Operations: health and readiness endpoints, Prometheus metrics, tracing, logging,
clean startup errors, the shutdown drain and cross-process flags.

Low in the chat layer (chat and the adapters use it); each module is imported by its
own path and this face loads none of them.
"""

from __future__ import annotations

__all__ = ["drain", "flags", "health", "logging", "metrics", "startup", "tracing"]
