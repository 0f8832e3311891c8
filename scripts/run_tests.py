"""Run the tests: the whole suite on PostgreSQL in parallel, then the tests whose behaviour differs on SQLite.

``scripts/run_tests.py [pytest args]`` (what ``./scripts/test.sh`` runs):

0. the page's script modules' unit tests, ``node --test tests/js/*.test.mjs`` (Debian's nodejs);
1. the PostgreSQL lane: throwaway PostgreSQL, Redis and headless Chromium are started, and every test not marked
   ``sqlite_only`` runs against them in one pytest-xdist process per core (``TEST_PROCESSES`` overrides). Each
   process has its own test database (``test_dialeval_gw0``...), its own Redis databases and its own Celery
   worker (tests/conftest.py), and draws loopback ports from its own share of the range (scripts/services.py);
   a test file's tests run together in one process, in their order (``--dist loadfile``), so that a fixture set
   up once per module (a browser, the deployment stack) is set up once, and the longest files go out first (the
   durations a whole run measured, ``tests/durations.txt``; tests/conftest.py). The services are stopped at the end;
2. the SQLite lane: the tests marked ``both_databases`` (what they test differs between the two databases:
   locking, transactions, raw SQL with a branch per database, JSON columns) or ``sqlite_only`` (the embedded
   default's own live tests: ``serve.sh``, runserver), on the embedded SQLite default with no services.

``scripts/run_tests.py --sqlite-all [pytest args]`` (``./scripts/test.sh --sqlite-all``) runs the whole suite on
SQLite instead (every test not marked ``postgres``, browser tests included, in parallel too), as the suite's
second lane did before it ran only the tests above.

``scripts/run_tests.py --record-durations [pytest args]`` also rewrites ``tests/durations.txt`` with what the
PostgreSQL lane's tests took (the tests longer than 5 s; commit it after a whole run when the long tests changed).

``scripts/run_tests.py --fast [pytest args]`` (``./scripts/test.sh --fast``) is the inner loop: SQLite only
(after the Node unit tests), leaving out the tests marked ``browser``, ``worker``, ``shared_data`` and
``postgres``; it needs no services and prints its wall time at the end.

Extra arguments go to every pytest run (e.g. ``-k import`` or a test file); ``-n 0`` (or ``-p no:xdist``) runs a
lane in one process. A test that needs PostgreSQL says why with ``@pytest.mark.postgres(reason=...)``; run on
SQLite without this script, it skips.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from services import Services, ensure_node, ensure_oidc_provider, ensure_system_packages, log

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
POSTGRES_LANE = "not sqlite_only"
SQLITE_LANE = "(both_databases or sqlite_only) and not postgres"
SQLITE_WHOLE = "not postgres"
FAST_LANE = "not (postgres or browser or worker or shared_data)"
NOTHING_SELECTED = 5


def processes() -> int:
    """How many test processes a lane runs in: one per core (``TEST_PROCESSES`` overrides)."""
    return int(os.environ.get("TEST_PROCESSES") or os.cpu_count() or 1)


def parallel(extra: list[str]) -> list[str]:
    """pytest-xdist's options for a lane, unless the arguments choose their own (``-n``, ``-p no:xdist``)."""
    chosen = any(a in ("-n", "--numprocesses", "no:xdist") or a.startswith(("-n", "--numprocesses=")) for a in extra)
    if chosen or processes() < 2:
        return []
    # a file's tests together (not --dist loadgroup: pytest 9.2 no longer sees the group pytest-xdist 3.8 writes
    # into the test ids, pytest-xdist issue 1386, and the groups' tests went out one by one to either process)
    return ["-n", str(processes()), "--dist", "loadfile", "--no-loadscope-reorder"]  # the order: tests/conftest.py


def pytest(lane: str, marks: str, args: list[str], env: dict[str, str]) -> int:
    started = time.monotonic()
    code = subprocess.run([PYTHON, "-m", "pytest", "-m", marks, *parallel(args), *args], cwd=ROOT, env=env).returncode
    log(f"{lane} lane exit {code} in {time.monotonic() - started:.0f} s (load {os.getloadavg()[0]:.1f})")
    return code


def environment() -> dict[str, str]:
    """This environment without the services' addresses: the settings' defaults are SQLite and the filesystem broker."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND")
    }
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    # Bytecode written (__pycache__, ignored by git) and kept between the processes and runs of the suite: with
    # PYTHONDONTWRITEBYTECODE set (as on the CI machine) every test process, worker, live server and manage.py
    # compiled the platform's modules again, and pytest rewrote the asserts of every test file again in each
    # process (18 of the 27 CPU seconds a collection of the suite took)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("STATISTICS_DEBOUNCE_SECONDS", "1")
    env.setdefault("MODEL_ESTIMATE_DELAY_SECONDS", "1")
    # the workers the tests start run at the test processes' priority: at the production's niceness 10 a worker
    # got a tenth of a core beside the other test process and its servers while its test waited for it (the
    # deployment stack sets 10 for its own workers, as deployed)
    env.setdefault("WORKER_NICENESS", "0")
    return env


def node_tests() -> int:
    """The page's script modules' unit tests (static/js/autosave/, tests/js/*.test.mjs) with Node's runner."""
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    code = subprocess.run(["node", "--test", *files], cwd=ROOT).returncode
    log(f"node --test ({len(files)} files) exit {code}")
    return code


def fast(extra: list[str]) -> int:
    started = time.monotonic()
    ensure_node()
    scripts = node_tests()
    code = pytest("fast (SQLite, no services)", FAST_LANE, ["-p", "no:cacheprovider", *extra], environment())
    log(f"fast lane exit {code} in {time.monotonic() - started:.1f} s")
    return code or scripts


def allowed_empty(code: int, extra: list[str]) -> int:
    """pytest exits 5 when nothing is selected: the whole suite must select something in each lane, but a chosen
    file may hold only tests of the other lane."""
    return 0 if code == NOTHING_SELECTED and extra else code


def both_lanes(extra: list[str]) -> int:
    started = time.monotonic()
    recording = "--record-durations" in extra  # the PostgreSQL lane's figures (the SQLite lane runs a tenth)
    extra = [a for a in extra if a != "--record-durations"]
    ensure_system_packages()
    ensure_oidc_provider()
    scripts = node_tests()
    base_env = environment()
    services = Services()
    try:
        env = dict(base_env, **services.start())
        log(f"PostgreSQL lane: PostgreSQL, Redis, Chromium, a Celery worker per test process ({processes()})")
        record = ["--record-durations"] if recording else []
        first = allowed_empty(pytest("PostgreSQL", POSTGRES_LANE, [*record, *extra], env), extra)
    finally:
        services.stop()
    log("SQLite lane: the embedded default (tasks in an outbox unless a test says otherwise)")
    second = allowed_empty(pytest("SQLite", SQLITE_LANE, ["-p", "no:cacheprovider", *extra], base_env), extra)
    log(f"PostgreSQL lane exit {first}, SQLite lane exit {second}; {time.monotonic() - started:.0f} s in all")
    return first or second or scripts


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--fast"]:
        return fast(args[1:])
    if args[:1] == ["--sqlite-all"]:
        ensure_system_packages()
        ensure_oidc_provider()
        code = pytest("SQLite (whole suite)", SQLITE_WHOLE, ["-p", "no:cacheprovider", *args[1:]], environment())
        return allowed_empty(code, args[1:])
    return both_lanes(args)


if __name__ == "__main__":
    sys.exit(main())
