"""Small helpers the runtime shares: logging (Agno's ``core.utils.log`` path), ids,
running coroutines from synchronous code, and timing observers."""

from __future__ import annotations

from core.utils.log import log_debug, log_error, log_info, log_warning

__all__ = ["log_debug", "log_error", "log_info", "log_warning"]
