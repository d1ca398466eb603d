"""Moved to :mod:`core.db.codec`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.db.codec import StateValueError as StateValueError
from core.db.codec import decode_state as decode_state
from core.db.codec import decode_value as decode_value
from core.db.codec import encode_delta as encode_delta
from core.db.codec import encode_state as encode_state
from core.db.codec import encode_value as encode_value
from core.db.codec import entry_bytes as entry_bytes
from core.db.codec import key_text as key_text
from core.db.codec import largest_keys as largest_keys
from core.db.codec import object_text as object_text
from core.db.codec import split_object as split_object
from core.db.codec import state_bytes as state_bytes
from core.db.codec import utf8_len as utf8_len
