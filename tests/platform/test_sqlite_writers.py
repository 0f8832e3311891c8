"""SQLite's writers in one process take turns (config/sqlite): a transaction holds the process's turn from its
``BEGIN`` to its end however it ends, and threads writing at once all land, one after the other; a closed
connection is kept for the next thread (its pool), outside any transaction and with a new connection's pragmas."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.db import connection, transaction

from config.sqlite.base import POOL_IDLE, WRITERS, _idle, _inherited

pytestmark = [pytest.mark.sqlite_only, pytest.mark.django_db(transaction=True)]


def test_a_transaction_holds_the_turn_until_its_commit_or_rollback():
    assert not WRITERS.locked()
    with transaction.atomic():
        Group.objects.create(name="committed")
        assert WRITERS.locked()
        with transaction.atomic():  # a savepoint takes no second turn
            Group.objects.create(name="nested")
    assert not WRITERS.locked()
    with pytest.raises(RuntimeError), transaction.atomic():
        Group.objects.create(name="rolled back")
        raise RuntimeError
    assert not WRITERS.locked()
    assert sorted(Group.objects.values_list("name", flat=True)) == ["committed", "nested"]


def test_threads_writing_at_once_all_land_one_at_a_time():
    n = 12
    start = threading.Barrier(n)
    inside, most_inside, failures = [0], [0], []
    guard = threading.Lock()

    def write(i: int) -> None:
        try:
            start.wait()
            with transaction.atomic():
                with guard:
                    inside[0] += 1
                    most_inside[0] = max(most_inside[0], inside[0])
                Group.objects.create(name=f"writer {i}")
                with guard:
                    inside[0] -= 1
        except Exception as exc:  # (reported below: "database is locked" would be one)
            failures.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert most_inside[0] == 1
    assert Group.objects.filter(name__startswith="writer ").count() == n
    assert not WRITERS.locked()


class RecordingLock:
    """The process's turn, recording who took it."""

    def __init__(self):
        self.lock, self.taken = threading.Lock(), []

    def acquire(self, timeout=-1):
        got = self.lock.acquire(timeout=timeout)
        self.taken.append(threading.current_thread().name)
        return got

    def release(self):
        self.lock.release()

    def locked(self):
        return self.lock.locked()


def test_a_write_outside_a_transaction_takes_the_turn_for_its_statement(monkeypatch):
    turn = RecordingLock()
    monkeypatch.setattr("config.sqlite.base.WRITERS", turn)
    Group.objects.create(name="autocommit")  # an INSERT of its own: one turn
    assert turn.taken == [threading.current_thread().name] and not turn.locked()
    Group.objects.filter(name="autocommit").update(name="renamed")  # an UPDATE: one more
    assert Group.objects.filter(name="renamed").count() == 1  # reads take none
    assert len(turn.taken) == 2
    with transaction.atomic():  # the transaction's turn covers its statements
        Group.objects.create(name="inside")
        Group.objects.filter(name="inside").delete()
    assert len(turn.taken) == 3 and not turn.locked()


def test_threads_writing_in_and_out_of_transactions_all_land():
    n = 12
    start = threading.Barrier(n)
    failures = []

    def write(i: int) -> None:
        try:
            start.wait()
            if i % 2:
                Group.objects.create(name=f"writer {i}")
            else:
                with transaction.atomic():
                    Group.objects.create(name=f"writer {i}")
        except Exception as exc:  # (reported below)
            failures.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=write, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert Group.objects.filter(name__startswith="writer ").count() == n
    assert not WRITERS.locked()


def _in_thread(work):
    """``work()`` in a new thread, as ``runserver`` serves a request; its connection closed at the end."""
    result = []

    def run():
        try:
            result.append(work())
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return result[0]


def test_the_next_thread_takes_the_connection_another_closed():
    assert connection.settings_dict["OPTIONS"]["pool"] and not connection.is_in_memory_db()
    first = _in_thread(lambda: (Group.objects.count(), connection.connection)[1])
    second = _in_thread(lambda: (Group.objects.count(), connection.connection)[1])
    assert first is second  # the same SQLite connection, not a new one


def test_a_pooled_connection_comes_back_as_a_new_one():
    def spoil():
        with connection.cursor() as cursor:  # as a schema change and an import leave their connection
            cursor.execute("PRAGMA foreign_keys = OFF")
            cursor.execute("PRAGMA cache_size = -65536")
        return connection.connection

    def pragmas():
        with connection.cursor() as cursor:
            return (
                connection.connection,
                cursor.execute("PRAGMA foreign_keys").fetchone()[0],
                cursor.execute("PRAGMA cache_size").fetchone()[0],
                cursor.execute("PRAGMA journal_mode").fetchone()[0],
            )

    spoiled = _in_thread(spoil)
    again, *settings = _in_thread(pragmas)
    assert again is spoiled
    assert settings == [1, -2000, "wal"]


def test_a_connection_closed_inside_a_transaction_is_not_kept():
    def close_inside():
        transaction.set_autocommit(False)
        Group.objects.create(name="never committed")
        assert connection.connection.in_transaction
        left_open = connection.connection
        connection.close()
        return left_open

    left_open = _in_thread(close_inside)
    assert all(c is not left_open for c in _idle.get(connection.settings_dict["NAME"], []))
    assert not Group.objects.filter(name="never committed").exists()  # rolled back by the close, not kept open
    assert not WRITERS.locked()


def test_at_most_pool_idle_connections_wait():
    n = POOL_IDLE + 4
    start = threading.Barrier(n)
    done = []

    def read():
        done.append(Group.objects.count())
        start.wait()  # all connected at once: n connections, n closes

    threads = [threading.Thread(target=lambda: _in_thread(read)) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(done) == n
    assert len(_idle[connection.settings_dict["NAME"]]) == POOL_IDLE


def test_a_forked_process_never_takes_its_parents_connections():
    kept = _in_thread(lambda: (Group.objects.count(), connection.connection)[1])
    assert any(c is kept for c in _idle[connection.settings_dict["NAME"]])
    child = os.fork()  # as the worker starts its pool processes
    if child == 0:
        os._exit(0 if not _idle and any(c is kept for c in _inherited) else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert any(c is kept for c in _idle[connection.settings_dict["NAME"]])  # the parent's own stay


KEEP_AND_EXIT = """
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("CREATE TABLE saves (x INTEGER)")
    cursor.execute("INSERT INTO saves VALUES (7)")
connection.close()  # kept for the next thread, open until the process exits
"""


def test_a_process_leaves_every_save_in_the_database_file_when_it_exits(tmp_path):
    database = tmp_path / "db.sqlite3"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local", "DATABASE_URL": f"sqlite:///{database}"}
    env["EMBEDDED_BROKER_DIR"] = str(tmp_path / "broker")
    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "manage.py", "shell", "-c", KEEP_AND_EXIT]  # (a command as any other)
    subprocess.run(command, cwd=root, env=env, check=True, timeout=120, capture_output=True)
    assert not Path(f"{database}-wal").exists()  # the kept connection was closed: the log written back
    copy = tmp_path / "copy.sqlite3"
    shutil.copy(database, copy)  # the file alone, as a backup by copy takes it
    with sqlite3.connect(copy) as alone:
        assert alone.execute("SELECT x FROM saves").fetchall() == [(7,)]
