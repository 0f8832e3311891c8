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


def queued_tasks(broker_url: str, task: str, queue: str) -> int:
    """How many messages for ``task`` the Redis broker still holds on ``queue``: waiting in it, or handed to a
    worker and not yet acknowledged (kombu's ``unacked`` hash, where countdown tasks wait too, and from which a
    message is handed out again after the visibility timeout). Zero means nothing more can run it there."""
    import json

    import redis

    client = redis.Redis.from_url(broker_url)
    reserved = [json.loads(raw) for raw in client.hvals("unacked")]
    payloads = [message for message, _exchange, routing_key in reserved if routing_key == queue]
    payloads += [json.loads(raw) for raw in client.lrange(queue, 0, -1)]
    return sum(1 for p in payloads if isinstance(p, dict) and p.get("headers", {}).get("task") == task)
