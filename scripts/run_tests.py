"""Start throwaway test services, run pytest against them, then the SQLite subset; clean up.

Extra arguments go to both pytest runs (e.g. ``-k import``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from services import Services, ensure_system_packages, log

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def pytest(args: list[str], env: dict[str, str]) -> int:
    return subprocess.run([PYTHON, "-m", "pytest", *args], cwd=ROOT, env=env).returncode


def main() -> int:
    ensure_system_packages()
    extra = sys.argv[1:]
    base_env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND")
    }
    base_env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    base_env.setdefault("STATISTICS_DEBOUNCE_SECONDS", "1")
    base_env.setdefault("MODEL_ESTIMATE_DELAY_SECONDS", "1")
    services = Services()
    try:
        env = dict(base_env, **services.start())
        log("suite on PostgreSQL + Redis + Celery worker + Chromium")
        first = pytest(["-m", "not sqlite_only", *extra], env)
    finally:
        services.stop()
    log("SQLite subset on the embedded default (in-process tasks)")
    second = pytest(["-m", "sqlite", "-p", "no:cacheprovider", *extra], dict(base_env, DIALEVAL_SQLITE_RUN="1"))
    # pytest exits 5 when a selection is empty; that is a failure of this script's own setup.
    log(f"PostgreSQL run exit {first}, SQLite run exit {second}")
    return first or second


if __name__ == "__main__":
    sys.exit(main())
