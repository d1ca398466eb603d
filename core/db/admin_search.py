"""Moved to :mod:`core.governance.search`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.governance.search import HOT_SCAN as HOT_SCAN
from core.governance.search import Cursor as Cursor
from core.governance.search import SessionPage as SessionPage
from core.governance.search import SessionQuery as SessionQuery
from core.governance.search import SessionRow as SessionRow
from core.governance.search import Status as Status
from core.governance.search import prefix_upper as prefix_upper
from core.governance.search import search_sessions as search_sessions
