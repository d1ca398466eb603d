"""The Redis lease tests (FIFO, waiters, fencing, two processes), run on a real local cluster.

Hand-offs are announced by a classic PUBLISH from inside the lease scripts; a cluster
forwards it to every node, so a waiter subscribed on any node hears it.
"""

from __future__ import annotations

import pytest

from tests.db.test_redis_lease import *  # noqa: F403  (the lease tests, collected here)

pytestmark = pytest.mark.slow
