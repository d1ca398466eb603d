"""Moved to :mod:`core.db.cipher`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.db.cipher import MARKER as MARKER
from core.db.cipher import StateCipher as StateCipher
from core.db.cipher import refuse_sealed as refuse_sealed
from core.db.cipher import sealed_key_id as sealed_key_id
