"""Waiting for a condition instead of sleeping a fixed time."""

from __future__ import annotations

import contextlib
import os
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


def _descendants(pid: int) -> set[int]:
    """The processes started by ``pid``, and by those, and so on (Linux: /proc/<pid>/stat)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _socket_inodes(pids: set[int]) -> set[str]:
    inodes = set()
    for pid in pids:
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:  # ended meanwhile
            continue
        inodes.update(link[8:-1] for link in links if link.startswith("socket:["))
    return inodes


def requests_in_flight(ports: set[int]) -> int:
    """How many connections to a server on one of ``ports`` (on this machine) are still open from a process this
    one started (the browser: a request sent as a page was left, ``fetch(..., {keepalive: true})``, outlives the
    page and its context), or are still held by the server after their client closed them (it is still
    answering). Zero once the server has answered every request the browser sent it; the connections of this
    process's own HTTP clients do not count (Linux: /proc/net/tcp and the processes' file descriptors).

    >>> requests_in_flight(set())
    0
    """
    if not ports:
        return 0
    sockets = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError), open(table) as rows:
            next(rows)
            for row in rows:
                fields = row.split()
                local, remote = (int(address.rsplit(":", 1)[1], 16) for address in fields[1:3])
                sockets.append((local, remote, fields[3], fields[9]))
    children = _socket_inodes(_descendants(os.getpid()))
    from_children = sum(1 for _local, remote, _state, inode in sockets if remote in ports and inode in children)
    answering_closed = sum(1 for local, _remote, state, _inode in sockets if local in ports and state == _CLOSE_WAIT)
    return from_children + answering_closed


_CLOSE_WAIT = "08"  # /proc/net/tcp's "st": the client closed, the server has not yet
