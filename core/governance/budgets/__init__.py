"""Usage budgets: the limits (model), the gate the runtime's loop feeds, the counters
per store (store, stores, sql_usage, redis_usage) and the usage report."""

from __future__ import annotations

__all__ = ["gate", "model", "redis_usage", "report", "sql_usage", "store", "stores"]
