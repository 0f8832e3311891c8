"""Django's SQLite backend, with the threads of one process queueing for the write lock instead of polling it.

Every transaction takes SQLite's write lock when it begins (``BEGIN IMMEDIATE``, config/settings/base.py). When
another connection holds it, SQLite's busy handler sleeps and tries again, in steps growing to 100 ms, until the
``timeout``: with 20 annotators saving at once through one server process (runserver's threads), a save that
could have had the lock a millisecond after it was freed slept up to 100 ms, time after time, and other threads
overtook it (saves' p95 of several seconds, the lock itself held a few milliseconds each). Here the threads of a
process first wait in turn on a lock of the process (``threading.Lock``: woken as soon as it is free, in order),
so that at most one of them at a time asks SQLite; the busy handler is left to settle only the other processes
(the worker). The process lock is held from ``BEGIN`` to the commit, the rollback or the connection's close, and a
thread that waits longer than the database's ``timeout`` for it goes on to SQLite's own waiting (nothing worse
than without it).

A write outside a transaction (autocommit: a submission's request for the statistics once its transaction has
committed, a job's row, a session) is a transaction of its own, and takes its turn too, for the statement: polling
for the lock it overtook queued threads, and while it held the lock (through its sync to disk) the thread whose
turn it was polled SQLite in steps of up to 100 ms (saves' p95 of seconds with 20 annotators, issue #46).
"""

from __future__ import annotations

import atexit
import os
import sqlite3
import threading
from contextlib import contextmanager

from django.db.backends.sqlite3 import base

WRITERS = threading.Lock()  # the process's turn at SQLite's write lock
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")
POOL_IDLE = 16  # idle connections kept per database file
SQLITE_DEFAULT_CACHE_KIB = 2000  # SQLite's default page cache (an import raises its connection's)
_idle: dict[str, list] = {}  # database file -> its idle connections, last closed last
_idle_lock = threading.Lock()
_inherited: list = []  # a forked process's copies of its parent's idle connections: never used, never closed


def _forget_idle() -> None:
    global _idle_lock
    _idle_lock = threading.Lock()
    _inherited.extend(c for idle in _idle.values() for c in idle)
    _idle.clear()


def _close_idle() -> None:
    """Close the kept connections (at the process's exit): the last connection's close writes the write-ahead log
    back into the database file and removes it, so that a copy of the file alone holds every save."""
    with _idle_lock:
        idle = [c for kept in _idle.values() for c in kept]
        _idle.clear()
    for conn in idle:
        conn.close()


os.register_at_fork(after_in_child=_forget_idle)
atexit.register(_close_idle)


def _writes(query: str) -> bool:
    return query.lstrip()[:7].upper().startswith(WRITES)


class TurnTakingCursor(base.SQLiteCursorWrapper):
    """Django's cursor; a write outside a transaction waits for the process's turn at the write lock."""

    timeout = 5.0

    @contextmanager
    def _turn(self, query: str):
        turn = not self.connection.in_transaction and _writes(query) and WRITERS.acquire(timeout=self.timeout)
        try:
            yield
        finally:
            if turn:
                WRITERS.release()

    def execute(self, query, params=None):
        with self._turn(query):
            return super().execute(query, params)

    def executemany(self, query, param_list):
        with self._turn(query):
            return super().executemany(query, param_list)


class DatabaseWrapper(base.DatabaseWrapper):
    holds_writers_turn = False
    pooled = False
    pool_key = ""
    opened_by = 0  # the process that opened the connection

    def get_connection_params(self):
        params = super().get_connection_params()
        self.pooled = bool(params.pop("pool", False)) and not self.is_in_memory_db()
        self.pool_key = params["database"]
        return params

    def get_new_connection(self, conn_params):
        if self.pooled:
            with _idle_lock:
                idle = _idle.get(conn_params["database"])
                conn = idle.pop() if idle else None
            if conn is not None:
                # as a new connection's (a schema change may have turned the keys' checks off; an import's cache)
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute(f"PRAGMA cache_size = -{SQLITE_DEFAULT_CACHE_KIB}")
                self.opened_by = os.getpid()
                return conn
        self.opened_by = os.getpid()
        return super().get_new_connection(conn_params)

    def _pool(self) -> bool:
        """Keep the connection for the next thread instead of closing it, if it is idle and there is room."""
        if not self.pooled or self.connection is None or self.opened_by != os.getpid():
            return False
        try:
            if self.connection.in_transaction:
                return False
        except sqlite3.ProgrammingError:  # closed already
            return False
        with _idle_lock:
            idle = _idle.setdefault(self.pool_key, [])
            if len(idle) >= POOL_IDLE:
                return False
            idle.append(self.connection)
        return True

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=TurnTakingCursor)
        cursor.timeout = float(self.settings_dict["OPTIONS"].get("timeout", 5))
        return cursor

    def _start_transaction_under_autocommit(self):
        timeout = float(self.settings_dict["OPTIONS"].get("timeout", 5))
        if not self.holds_writers_turn and self.transaction_mode == "IMMEDIATE":
            self.holds_writers_turn = WRITERS.acquire(timeout=timeout)
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._writers_turn_end()
            raise

    def _writers_turn_end(self) -> None:
        if self.holds_writers_turn:
            self.holds_writers_turn = False
            WRITERS.release()

    def _commit(self):
        try:
            return super()._commit()
        finally:
            self._writers_turn_end()

    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._writers_turn_end()

    def _close(self):
        try:
            if not self._pool():
                return super()._close()
        finally:
            self._writers_turn_end()
