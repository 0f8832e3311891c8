"""SQLite's writers in one process take turns (config/sqlite): a transaction holds the process's turn from its
``BEGIN`` to its end however it ends, and threads writing at once all land, one after the other."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import Group
from django.db import connection, transaction

from config.sqlite.base import WRITERS

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
