"""Platform adapters, one folder each (``slack``, ``discord``, ``console``).

An adapter turns its platform's payloads into ``bots.inbound`` records, hands them to
the ``ChatService`` and posts the replies. Adapters never import each other; what they
share lives in the layers below (``bots.chat``, ``bots.ops``, the vocabulary).
"""

from __future__ import annotations

__all__: list[str] = []
