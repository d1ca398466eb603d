"""The chat face of governance: ``/state`` commands, their confirmations, and the
budget and retention policies the settings ask for.

Import from the modules (``bots.admin.commands``, ``bots.admin.actions`` …); this face
re-exports nothing, so importing one part never loads the others.
"""

from __future__ import annotations

__all__: list[str] = []
