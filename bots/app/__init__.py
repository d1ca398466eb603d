"""The composition root: builds the store, the agents' registry and the ``ChatService``
from the settings (``bots.app.build``), and the ``--app module:attr`` option every
serving command shares (``bots.app.option``).

Import from the modules; this face re-exports nothing, so importing one part never
loads the others.
"""

from __future__ import annotations

__all__: list[str] = []
