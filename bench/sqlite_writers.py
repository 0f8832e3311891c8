"""Why SQLite's writers in one process take turns (config/sqlite): 20 threads of one process each run write
transactions the way a save does (``BEGIN IMMEDIATE``, a little work inside, ten rows, commit; some work between),
on one SQLite file in WAL mode with the settings' 20 s timeout, first each polling SQLite's lock through its busy
handler (as Django's backend does), then queueing on the process's lock first (``config.sqlite.base.WRITERS``'s
way), interleaved round by round. Prints the median, p95 and largest wait-plus-transaction time and the wall time
of each round, with the load.

With ``--after-commit``, each transaction is followed, as a submission's is (its request for the statistics), by
one write outside a transaction (an ``UPDATE`` in autocommit), and the rounds compare the two ways of making it
while the transactions take turns: polling SQLite's lock (``"after_commit": "polls"``, as before issue #46) and
taking the process's turn for the statement (``"takes turns"``, ``config.sqlite.base.TurnTakingCursor``'s way);
the times then run to the end of that write (a save answers once its transaction's hooks have run).

    .venv/bin/python bench/sqlite_writers.py [--rounds 3] [--threads 20] [--each 10] [--after-commit]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path


def burn(ms: float) -> None:
    """Hold the CPU ``ms`` milliseconds of this thread's time (a request's Python work)."""
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        pass


def round_of(path: Path, *, take_turns: bool, threads: int, each: int, after_commit: str | None = None) -> dict:
    turn, guard, waits = threading.Lock(), threading.Lock(), []

    def writer() -> None:
        con = sqlite3.connect(path, timeout=20, isolation_level=None, check_same_thread=False)
        for _ in range(each):
            burn(3)  # the request's work before its transaction
            started = time.perf_counter()
            if take_turns:
                turn.acquire(timeout=20)
            con.execute("BEGIN IMMEDIATE")
            burn(2)  # the ORM's work inside it
            con.executemany("INSERT INTO t (a, b) VALUES (?, ?)", [(i, "x" * 20) for i in range(10)])
            con.execute("COMMIT")
            if take_turns:
                turn.release()
            if after_commit is not None:
                if after_commit == "takes turns":
                    turn.acquire(timeout=20)
                con.execute("UPDATE t SET a = a + 1 WHERE id = 1")
                if after_commit == "takes turns":
                    turn.release()
            with guard:
                waits.append(time.perf_counter() - started)
        con.close()

    workers = [threading.Thread(target=writer) for _ in range(threads)]
    started = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall = time.perf_counter() - started
    waits.sort()
    return {
        "take_turns": take_turns,
        **({"after_commit": after_commit} if after_commit else {}),
        "median_ms": round(statistics.median(waits) * 1000, 1),
        "p95_ms": round(waits[int(0.95 * len(waits))] * 1000, 1),
        "max_ms": round(waits[-1] * 1000, 1),
        "wall_s": round(wall, 2),
        "loadavg": Path("/proc/loadavg").read_text().strip(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=20)
    parser.add_argument("--each", type=int, default=10)
    parser.add_argument("--after-commit", action="store_true", help="a write in autocommit after each transaction")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "writers.sqlite3"
        con = sqlite3.connect(path)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT)")
        con.commit()
        con.close()
        for _ in range(args.rounds):
            if args.after_commit:
                for way in ("polls", "takes turns"):
                    figures = round_of(path, take_turns=True, threads=args.threads, each=args.each, after_commit=way)
                    print(json.dumps(figures))
                continue
            for take_turns in (False, True):
                print(json.dumps(round_of(path, take_turns=take_turns, threads=args.threads, each=args.each)))


if __name__ == "__main__":
    main()
