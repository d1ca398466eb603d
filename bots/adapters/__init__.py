"""Platform adapters: the seam (``base``, ``registry``) and one folder per platform
(``slack``, ``discord``, ``console``).

An adapter turns its platform's payloads into ``bots.inbound`` records, hands them to
the ``ChatService`` and posts the replies. ``base.Adapter`` is what the rest of
Statebot sees of one (name, traits, settings, command, ``serve``); ``registry`` finds
one by name, one line per built-in platform, loaded on first use. Adapters never
import each other, and nothing outside a platform's folder imports it; what they share
lives in the layers below (``bots.chat``, ``bots.ops``, the vocabulary). Adding a
platform: docs/adapters.md.
"""

from __future__ import annotations

__all__: list[str] = []
