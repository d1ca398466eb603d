"""The composition root: builds the store, the agents and the ``ChatService`` from the
settings (``bots.app.build``), joins the service and the admin commands
(``bots.app.service``), turns the settings into the deployment's budget
(``bots.app.budgets``) and retention policy (``bots.app.retention``), and holds what
every ``statebot`` command shares (``bots.app.option``: ``--app module:attr``;
``bots.app.cli_format``: -h, counts and times).

Import from the modules; this face re-exports nothing, so importing one part never
loads the others.
"""

from __future__ import annotations

__all__: list[str] = []
