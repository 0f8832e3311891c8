"""Which process holds a piece of work, and whether that process is gone, so that another takes the work over at
once instead of after the time the work may take.

A process is named ``host:pid:start`` (``start``: when it started, in clock ticks since the machine booted, from
``/proc``), so that a process id used again by a later process (a restarted container numbers its processes from
1 again) does not pass for the one that held the work. Whether a process of another machine still runs cannot be
known from here: such a holder is never said to be gone.

>>> holder = this_process()
>>> process_gone(holder)
False
>>> host, pid, start = holder.rsplit(":", 2)
>>> process_gone(f"{host}:{pid}:{start}0")  # this process id, another start: a later process with the same id
True
>>> process_gone(f"another-host:{pid}:{start}")
False
"""

from __future__ import annotations

import os
import socket
from pathlib import Path


def _start_ticks(pid: int) -> str:
    """When process ``pid`` started (``/proc/PID/stat``'s 22nd field), or '' (no such process, or no ``/proc``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat[stat.rindex(")") + 2 :].split()[19]


def process_name(pid: int) -> str:
    """``host:pid:start`` of process ``pid`` of this machine."""
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid)}"


def this_process() -> str:
    """The calling process's name (asked each time: a forked worker is another process)."""
    return process_name(os.getpid())


def process_gone(holder: str) -> bool:
    """True when ``holder`` (``this_process()`` of the process that took the work) names a process of this machine
    that no longer runs; False when it runs, is of another machine, or ``holder`` is empty or not such a name."""
    try:
        host, pid_text, start = holder.rsplit(":", 2)
        pid = int(pid_text)
    except ValueError:
        return False
    if host != socket.gethostname() or pid <= 0:
        return False
    if start:
        return _start_ticks(pid) != start
    try:  # (no /proc when the holder was named: only whether the process id is in use)
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
