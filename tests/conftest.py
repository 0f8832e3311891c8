"""Shared fixtures: the real collections, project factories, a manage.py runner on the test database."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.utils import translation
from hypothesis import settings as hypothesis_settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from services import celery_worker_command, xdist_slot

from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"

# Hypothesis draws the same examples in every run of the suite: the state machines assert that their sequences
# reached every case they are about (a conflict, an exclusion in force...), which must not depend on the luck of
# a seed (two such failures in whole-suite runs, never alone). HYPOTHESIS_PROFILE=explore draws new ones.
hypothesis_settings.register_profile("suite", derandomize=True)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


def pytest_configure(config):
    redis_databases_of_this_process()


def redis_databases_of_this_process() -> None:
    """Under pytest-xdist each test process sends its tasks to Redis databases of its own (``2n`` and ``2n + 1``
    of the one redis-server scripts/run_tests.py starts, for process ``gw<n>``), which only its own Celery
    worker reads: a task is never taken by another process's worker, which works on another test database
    (pytest-django gives each process its own, suffixed ``_gw<n>``). Set before any test sends a task (the
    Celery app reads the settings when first used), in the settings and in the environment, which the
    processes a test starts (workers, live servers, gunicorn with the production settings) inherit."""
    from django.conf import settings

    index, count = xdist_slot()
    if count == 1 or settings.EMBEDDED_BROKER:  # the embedded broker: a folder per process (config.settings.test)
        return
    for name, number in (("CELERY_BROKER_URL", 2 * index), ("CELERY_RESULT_BACKEND", 2 * index + 1)):
        url = urlunsplit(urlsplit(getattr(settings, name))._replace(path=f"/{number}"))
        setattr(settings, name, url)
        os.environ[name] = url
    os.environ.pop("REDIS_URL", None)


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(config, report):
    """A test process of pytest-xdist sends each report to the controller as UTF-8: a lone surrogate in what a test
    printed or logged (the hostile-input tests log such text on purpose) would crash the process. Such characters
    are sent escaped (``\\ud800``)."""
    data = yield
    return _encodable(data)


def _encodable(value):
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_encodable(v) for v in value)
    return value


def pytest_report_header(config):
    from django.conf import settings

    return f"database: {settings.DATABASES['default']['ENGINE']}; broker: {settings.CELERY_BROKER_URL}"


def _reason(item, name: str) -> str:
    marker = item.get_closest_marker(name)
    reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
    if not reason:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{name} needs a reason")
    return reason


def pytest_collection_modifyitems(config, items):
    """A test runs on the database the settings name unless its marker says it needs the other one; under
    pytest-xdist the test files go out longest first.

    ``postgres(reason=...)`` must say why; on SQLite such a test skips with that reason (scripts/run_tests.py
    leaves it out of the SQLite lane). ``sqlite_only`` skips on PostgreSQL. ``both_databases(reason=...)``
    (the SQLite lane runs it too) must say what differs between the two databases.

    Under ``--dist loadfile`` (scripts/run_tests.py) pytest-xdist hands out a test file's tests together to one
    process, in the order they have here (pytest-django's: the order their databases need), so that a fixture
    set up once per module (a browser, the deployment stack) is set up in one process only; the files go out in
    the order ``longest_first`` puts them.
    """
    from django.conf import settings

    on_sqlite = settings.DATABASES["default"]["ENGINE"] in ("django.db.backends.sqlite3", "config.sqlite")
    for item in items:
        if item.get_closest_marker("postgres") is not None:
            reason = _reason(item, "postgres")
            if on_sqlite:
                item.add_marker(pytest.mark.skip(reason=f"needs PostgreSQL: {reason}"))
        if item.get_closest_marker("both_databases") is not None:
            _reason(item, "both_databases")
        if "sqlite_only" in item.keywords and not on_sqlite:
            item.add_marker(pytest.mark.skip(reason="runs only on SQLite"))
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items[:] = longest_first(items, durations_known())


# Under pytest-xdist the run ends when its last test does: a 300 s test handed out last leaves the other process
# idle for its length. The work units (a test file's tests, which pytest-xdist hands out together under --dist
# loadfile) go out longest first (scripts/run_tests.py turns off pytest-xdist's own order, by number of tests:
# --no-loadscope-reorder), from the durations measured in a whole run (tests/durations.txt, rewritten by
# --record-durations); a test not listed there is expected to take what tests of its kind take.
DURATIONS = Path(__file__).with_name("durations.txt")
SHORTER_THAN_LISTED = 5.0  # seconds: the file lists the tests that took longer (setup, call and teardown)
EXPECTED_BY_MARKER = {"deployment": 60.0, "worker": 8.0, "shared_data": 15.0, "browser": 10.0}
EXPECTED_OTHERWISE = 0.5


def pytest_addoption(parser):
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"write the tests that took longer than {SHORTER_THAN_LISTED:.0f} s to {DURATIONS.name} (the order "
        "of the work handed out under pytest-xdist); tests that did not run keep their line",
    )


def durations_known(path: Path = DURATIONS) -> dict[str, float]:
    """The measured seconds by node id (``<seconds> <node id>`` lines, after comment lines starting with ``#``)."""
    known: dict[str, float] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                seconds, nodeid = line.split(maxsplit=1)
                known[nodeid] = float(seconds)
    return known


def expected_seconds(item, known: dict[str, float]) -> float:
    if item.nodeid in known:
        return known[item.nodeid]
    return max(
        (seconds for name, seconds in EXPECTED_BY_MARKER.items() if item.get_closest_marker(name)),
        default=EXPECTED_OTHERWISE,
    )


def work_unit(nodeid: str) -> str:
    """What pytest-xdist hands out at once under ``--dist loadfile``: the tests of one file (the rule of its
    ``LoadFileScheduling._split_scope``)."""
    return nodeid.split("::", 1)[0]


def longest_first(items: list, known: dict[str, float]) -> list:
    """``items`` with each file's tests together in their order, the files by expected seconds, the longest first
    (ties as collected)."""
    units: dict[str, list] = {}
    for item in items:
        units.setdefault(work_unit(item.nodeid), []).append(item)
    total = {unit: sum(expected_seconds(i, known) for i in tests) for unit, tests in units.items()}
    order = sorted(units, key=lambda unit: -total[unit])  # stable: ties keep the collection order
    return [item for unit in order for item in units[unit]]


class DurationsRecorder:
    """Adds up each test's setup, call and teardown (in the controller under pytest-xdist) and rewrites
    ``DURATIONS`` at the end: the tests that ran, with what they took now; the others keep their line."""

    def __init__(self, path: Path = DURATIONS) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session) -> None:
        if not self.seconds or hasattr(session.config, "workerinput"):
            return
        kept = {n: s for n, s in durations_known(self.path).items() if n not in self.seconds}
        kept.update({n: s for n, s in self.seconds.items() if s >= SHORTER_THAN_LISTED})
        lines = [f"{s:7.1f} {n}" for n, s in sorted(kept.items(), key=lambda pair: (-pair[1], pair[0]))]
        old = self.path.read_text().splitlines() if self.path.exists() else []
        header = list(itertools.takewhile(lambda line: line.startswith("#"), old))
        self.path.write_text("\n".join([*header, *lines]) + "\n")


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    config = session.config
    if config.getoption("record_durations", default=False) and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationsRecorder(), "durations-recorder")


@pytest.fixture(scope="session", autouse=True)
def admin_registrations():
    """The admin's registrations, which a web process loads with the URLs (config.admin_app), for the tests that
    use a model's admin without a request."""
    from django.contrib import admin

    admin.autodiscover()


@dataclass
class SentTask:
    name: str
    args: list
    countdown: float | None
    task_id: str


# The latent-truth models' estimate a statistics recomputation asks for (spaced: sent with a countdown) stays in the
# outbox of an eager test: its EM over every annotator takes minutes, which every import and submission of such a
# test would wait for; the tests of the estimate ask for it at once (the lead's request) or use the real worker.
AUTOMATIC_ESTIMATE = "evaluation.tasks.estimate_model_reliability"


@pytest.fixture(autouse=True)
def tasks_sent(request, monkeypatch) -> list[SentTask]:
    """Where the tasks a test sends go: a test marked ``worker`` sends them through the real broker to the real
    worker; one marked ``eager_tasks(reason=...)`` runs them inside the caller (Celery's eager mode; all but the
    automatic estimate, ``AUTOMATIC_ESTIMATE``), and must say why; every other test keeps them in this outbox
    (the job is recorded as sent; nothing runs it), which it may read to check what was asked of the workers."""
    from celery._state import _set_task_join_will_block

    from config.celery import app

    outbox: list[SentTask] = []
    if request.node.get_closest_marker("worker"):
        app.conf.task_always_eager = False
        yield outbox
        return
    eager = request.node.get_closest_marker("eager_tasks")
    if eager is None:

        def keep(name, args, *, task_id, countdown=None):
            outbox.append(SentTask(name, list(args), countdown, task_id))
            return True

        monkeypatch.setattr("config.enqueue.publish", keep)
        yield outbox
        return
    if not (eager.kwargs.get("reason") or (eager.args[0] if eager.args else "")):
        raise pytest.UsageError(f"{request.node.nodeid}: @pytest.mark.eager_tasks needs a reason")
    from config import enqueue

    publish = enqueue.publish

    def at_once(name, args, *, task_id, countdown=None):
        if name == AUTOMATIC_ESTIMATE and countdown:
            outbox.append(SentTask(name, list(args), countdown, task_id))
            return True
        return publish(name, args, task_id=task_id, countdown=countdown)

    monkeypatch.setattr("config.enqueue.publish", at_once)
    app.conf.task_always_eager = True
    yield outbox
    app.conf.task_always_eager = False
    # Celery's "inside a task" flag is one global: eager tasks run at once in several threads (concurrent
    # saves) can leave it set, and a later worker test's result.get() would then refuse to wait
    _set_task_join_will_block(False)


@pytest.fixture(autouse=True)
def english_between_tests():
    """A request leaves its language active in the thread: each test starts from the default (English)."""
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fresh_cache():
    """Rate limits count in the cache: each test starts with none used."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(autouse=True)
def fresh_structure_cache():
    """Rolled-back tests hand SQLite's ids out again, so no test sees another's cached criteria."""
    from annotator.selectors.structure import structure_cache_clear

    structure_cache_clear()
    yield


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("needs the real collections in ../shared/data (not part of a user's clone)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def stc3_dir(shared_data, tmp_path_factory) -> Path:
    """The STC-3 zip extracted once per session."""
    target = tmp_path_factory.mktemp("stc3")
    with zipfile.ZipFile(shared_data / "stc3.zip") as archive:
        archive.extractall(target)
    return target / "stc3"


@pytest.fixture(scope="session")
def dbdc_dir(shared_data, tmp_path_factory) -> Path:
    """DBDC3 (original release, English) extracted once per session: ``en/dev`` and ``en/eval``."""
    target = tmp_path_factory.mktemp("dbdc3")
    with zipfile.ZipFile(shared_data / "dbdc3.zip") as archive:
        members = [m for m in archive.namelist() if m.startswith("DBDC3/dbdc3/en/")]
        archive.extractall(target, members)
    return target / "DBDC3" / "dbdc3" / "en"


@pytest.fixture(scope="session")
def dbdc_ja_dir(shared_data, tmp_path_factory) -> Path:
    """DBDC3 (original release, Japanese) extracted once per session: ``eval`` (DCM, DIT, IRS).

    Unlike the English logs, the Japanese ones annotate the opening system utterance too.
    """
    target = tmp_path_factory.mktemp("dbdc3-ja")
    with zipfile.ZipFile(shared_data / "dbdc3.zip") as archive:
        members = [m for m in archive.namelist() if m.startswith("DBDC3/dbdc3/ja/")]
        archive.extractall(target, members)
    return target / "DBDC3" / "dbdc3" / "ja"


@pytest.fixture
def make_project(db):
    from annotator.services.projects import project_create

    def make(preset: str, slug: str | None = None, **kwargs):
        return project_create(slug=slug or f"{preset}-test", preset=preset, **kwargs)

    return make


@pytest.fixture
def make_user(db, django_user_model):
    counter = {"n": 0}

    def make(username: str | None = None, password: str = "pw-for-tests-1"):
        counter["n"] += 1
        return django_user_model.objects.create_user(username=username or f"user{counter['n']}", password=password)

    return make


def database_url() -> str:
    """A URL for the database the tests are using (the test database, not the configured one)."""
    from django.db import connection

    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    return f"postgres://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


def manage_py(*args: str, check: bool = False) -> subprocess.CompletedProcess:
    """``manage.py`` run in a subprocess against the test database (which sees only committed rows)."""
    env = dict(os.environ, DATABASE_URL=database_url(), DJANGO_SETTINGS_MODULE="config.settings.test")
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    if check and result.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture
def manage(transactional_db):
    """Run ``manage.py`` in a subprocess against the test database; returns CompletedProcess."""
    return manage_py


def start_worker(
    db_url: str,
    log: Path,
    queue: str = "interactive,heavy,exports",
    name: str = "test-worker",
    env: dict | None = None,
    busy_at_start: bool = False,
) -> subprocess.Popen:
    """A real Celery worker process on the test database and the Redis the test command started; started once
    it answers a ping, or (``busy_at_start``: a solo worker that takes a redelivered task at once answers no
    ping until the task is done) once its log says it is ready."""
    from config.celery import app, embedded_broker_prepare

    embedded_broker_prepare()  # the filesystem broker's folders, which the ping below declares its queue in
    env = dict(os.environ, DATABASE_URL=db_url, DJANGO_SETTINGS_MODULE="config.settings.test", **(env or {}))
    with open(log, "w") as out:
        process = subprocess.Popen(
            celery_worker_command(queues=queue, name=name, loglevel="INFO"),
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    node = f"{name}@{socket.gethostname()}"
    for _ in range(120):
        if process.poll() is not None:
            raise RuntimeError(f"the worker exited: {log.read_text()}")
        if (busy_at_start and f"{node} ready." in log.read_text()) or app.control.ping(destination=[node], timeout=0.5):
            return process
    stop_worker(process)
    raise RuntimeError(f"the worker did not answer a ping: {log.read_text()}")


def stop_worker(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture
def celery_worker_process(transactional_db, celery_worker_session):
    """The session's worker, idle when the test starts: what earlier tests of this process left waiting in its
    queues (their projects are gone) is purged, and the task it may still be running for one of them is let end,
    so that a test's own tasks are not queued behind minutes of an earlier test's work (a 60,000-label project's
    statistics and models, webhook retries). The same again when the test ends, before its database is emptied
    (``transactional_db`` is set up first, so torn down after): a task of the test still running in the worker
    while the tables are truncated can deadlock with the truncation (a whole run of 22:23 did)."""
    from config.celery import app

    node = celery_worker_session.node
    inspect = app.control.inspect(destination=[node], timeout=2)

    def idle() -> None:
        app.control.purge()
        wait_for(lambda: not any((inspect.active() or {node: [None]}).values()), 180)

    idle()
    yield celery_worker_session.process
    idle()


@dataclass(frozen=True)
class SessionWorker:
    process: subprocess.Popen
    node: str


@pytest.fixture(scope="session")
def celery_worker_session(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real worker on the test database, through the broker of the settings: the Redis the test command started
    (PostgreSQL lane), or the embedded default's filesystem broker in this test run's folder (SQLite lane)."""
    with django_db_blocker.unblock():
        url = database_url()
    # The receivers the webhook and endpoint-judge tests start listen on 127.0.0.1: the operator names that host
    # for this worker (OUTBOUND_ALLOWED_HOSTS), as the tests that deliver in the caller do in their own settings.
    # The refusal of loopback by workers is tested on workers started without it (tests/platform/test_security_live.py).
    loopback = {"OUTBOUND_ALLOWED_HOSTS": "127.0.0.1"}
    from django.conf import settings

    from config.celery import app

    # the worker reads the broker this process sends to (redis_databases_of_this_process; on SQLite the folder of
    # this process, config.settings.test), not another's
    sent_to = os.environ.get("CELERY_BROKER_URL", settings.CELERY_BROKER_URL)
    assert app.conf.broker_url == settings.CELERY_BROKER_URL == sent_to, app.conf.broker_url
    if settings.EMBEDDED_BROKER:
        folder = str(Path(os.environ["EMBEDDED_BROKER_DIR"]) / "messages")
        assert app.conf.broker_transport_options["data_folder_in"] == folder, app.conf.broker_transport_options
    name = f"test-worker-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    process = start_worker(url, tmp_path_factory.mktemp("worker") / "worker.log", name=name, env=loopback)
    yield SessionWorker(process=process, node=f"{name}@{socket.gethostname()}")
    stop_worker(process)
