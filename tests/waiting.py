"""Waiting for a condition instead of sleeping a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(condition: Callable[[], object], timeout: float = 90.0, every: float = 0.2) -> bool:
    """Whether ``condition()`` became true within ``timeout`` seconds, asking every ``every`` seconds.

    >>> wait_for(lambda: True, timeout=0)
    True
    >>> wait_for(lambda: False, timeout=0.01, every=0.005)
    False
    """
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)
