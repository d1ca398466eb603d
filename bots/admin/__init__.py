"""The chat face of governance: ``/state`` commands (routing, grammar, actions, audit
views, usage) and the Confirm / Cancel questions of restore and erase.

Import from the modules (``bots.admin.commands``, ``bots.admin.actions`` …); this face
re-exports nothing, so importing one part never loads the others.
"""

from __future__ import annotations

__all__: list[str] = []
