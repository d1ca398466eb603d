"""Ready toolkits and their agents: taskboard, shopping list, customer records.

See docs/toolkits.md; ``tools.catalog`` lists the agents by id.
"""

__all__ = ["catalog", "customers", "shopping", "taskboard"]
