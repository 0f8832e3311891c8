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
"""

from __future__ import annotations

import threading

from django.db.backends.sqlite3 import base

WRITERS = threading.Lock()  # the process's turn at SQLite's write lock


class DatabaseWrapper(base.DatabaseWrapper):
    holds_writers_turn = False

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
            return super()._close()
        finally:
            self._writers_turn_end()
