"""A transient database error while reading the judgements surfaces as itself, so the task retries it.

Another connection holds the judgements table locked and this one gives up after a lock timeout:
the same ``OperationalError`` a PostgreSQL restart raises mid-query.
"""

import psycopg2
import pytest
from django.db import OperationalError, connection

from annotator.models import Judgement
from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.imports import dialogues_import
from evaluation.models import ProjectStatistics
from tests.fixtures.collections import stc3_dialogues, write_json

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres(reason="table locks and lock_timeout")]


@pytest.fixture
def project(make_project, tmp_path):
    project = make_project("stc3", slug="locked")
    dialogues_import(project=project, paths=[write_json(tmp_path / "s.json", stc3_dialogues())])
    return project


class TableLock:
    """Another connection that locks the judgements table on ``take()``; this one waits 300 ms for locks."""

    def __init__(self):
        s = connection.settings_dict
        self.holder = psycopg2.connect(
            dbname=s["NAME"], user=s["USER"], host=s["HOST"], port=s["PORT"], password=s["PASSWORD"]
        )
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '300ms'")

    def take(self) -> None:
        with self.holder.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {Judgement._meta.db_table} IN ACCESS EXCLUSIVE MODE")

    def close(self) -> None:
        self.holder.rollback()
        self.holder.close()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")


@pytest.fixture
def table_lock():
    lock = TableLock()
    yield lock
    lock.close()


def test_reading_the_judgements_raises_the_database_error(project, table_lock):
    table_lock.take()
    with pytest.raises(OperationalError, match="lock timeout"):
        project_judgements(project)
    with pytest.raises(OperationalError, match="lock timeout"):
        project_judgements(project, long_form=False)


def test_the_recomputation_task_retries_an_error_while_reading_the_arrays(project, table_lock, monkeypatch):
    from evaluation.services import statistics
    from evaluation.tasks import recompute_statistics

    # the database goes away after the fingerprint was read, while the judgements are read into arrays
    fingerprint = statistics.judgements_fingerprint

    reads = []

    def fingerprint_then_lock(of_project):
        answer = fingerprint(of_project)
        table_lock.take()
        reads.append(answer)
        return answer

    monkeypatch.setattr(statistics, "judgements_fingerprint", fingerprint_then_lock)
    # run in-process (apply): Celery retries the task there as a worker would, each attempt reading again
    result = recompute_statistics.apply(args=(project.pk,), kwargs={"force": True})
    assert result.state == "FAILURE" and isinstance(result.result, OperationalError)
    assert len(reads) == 1 + recompute_statistics.retry_kwargs["max_retries"]  # the first attempt and each retry
    assert not ProjectStatistics.objects.filter(project=project).exists()
