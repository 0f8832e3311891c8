"""Run the tests in two lanes, or the fast lane alone.

``scripts/run_tests.py [pytest args]`` (what ``./scripts/test.sh`` runs):

0. the page's script modules' unit tests, ``node --test tests/js/*.test.mjs`` (Debian's nodejs);
1. the PostgreSQL lane: throwaway PostgreSQL, Redis, a Celery worker and headless Chromium are started,
   every test not marked ``sqlite_only`` runs against them, and the services are stopped;
2. the SQLite lane: every test not marked ``postgres`` runs again on the embedded SQLite default, with
   tasks in-process and no services.

``scripts/run_tests.py --fast [pytest args]`` (``./scripts/test.sh --fast``) is the inner loop: the SQLite
lane only (after the Node unit tests), leaving out the tests marked ``browser``, ``worker``, ``shared_data``
and ``postgres``; it needs no services and prints its wall time at the end.

Extra arguments go to every pytest run (e.g. ``-k import`` or a test file). A test that needs PostgreSQL
says why with ``@pytest.mark.postgres(reason=...)``; run on SQLite without this script, it skips.
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
SQLITE_LANE = "not postgres"
FAST_LANE = "not (postgres or browser or worker or shared_data)"
NOTHING_SELECTED = 5


def pytest(args: list[str], env: dict[str, str]) -> int:
    return subprocess.run([PYTHON, "-m", "pytest", *args], cwd=ROOT, env=env).returncode


def environment() -> dict[str, str]:
    """This environment without the services' addresses: the settings' defaults are SQLite and in-process tasks."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND")
    }
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    env.setdefault("STATISTICS_DEBOUNCE_SECONDS", "1")
    env.setdefault("MODEL_ESTIMATE_DELAY_SECONDS", "1")
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
    code = pytest(["-m", FAST_LANE, "-p", "no:cacheprovider", *extra], environment()) or scripts
    log(f"fast lane (SQLite, no services) exit {code} in {time.monotonic() - started:.1f} s")
    return code


def both_lanes(extra: list[str]) -> int:
    ensure_system_packages()
    ensure_oidc_provider()
    scripts = node_tests()
    base_env = environment()
    services = Services()
    try:
        env = dict(base_env, **services.start())
        log("PostgreSQL lane: PostgreSQL + Redis + Celery worker + Chromium")
        first = pytest(["-m", "not sqlite_only", *extra], env)
    finally:
        services.stop()
    log("SQLite lane: the embedded default (tasks in an outbox unless a test says otherwise)")
    second = pytest(["-m", SQLITE_LANE, "-p", "no:cacheprovider", *extra], base_env)
    log(f"PostgreSQL lane exit {first}, SQLite lane exit {second}")
    # pytest exits 5 when nothing is selected: the whole suite must select something in each lane, but a
    # chosen file may hold only PostgreSQL tests.
    if second == NOTHING_SELECTED and extra:
        second = 0
    return first or second or scripts


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--fast"]:
        return fast(args[1:])
    return both_lanes(args)


if __name__ == "__main__":
    sys.exit(main())
