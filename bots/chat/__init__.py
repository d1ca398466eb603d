"""The platform-neutral chat pipeline: ``ChatService`` (registry, routing, keys), the
replies and cards it answers with, commands, streaming, schedules, approvals and undo.

Nothing here knows a platform or the admin commands; adapters call the service, the
composition root (``bots.app``) plugs the admin commands in. Import from the modules;
this face re-exports nothing, so importing one part never loads the others.
"""

from __future__ import annotations

__all__: list[str] = []
