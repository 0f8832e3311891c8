"""Test settings: fast password hashing; database and broker come from the environment."""

import atexit
import os
import shutil
import tempfile

# The files jobs write (MEDIA_ROOT) and the embedded broker's folder: a temporary folder of this test run, which the
# servers and workers the tests start inherit with the environment; never the developer's media/ nor the folder of
# their serve.sh's broker (a worker of theirs would take the tests' messages). Under pytest-xdist each test process
# has its own (as it has its own database): another process's worker would take its messages, and job ids repeat
# across the processes' databases. The processes pytest-xdist starts inherit the controller's environment, so a
# test process sets its own folders once (DIALEVAL_TEST_FILES_OF); what it starts inherits them.
if "DIALEVAL_TEST_FILES" not in os.environ:
    os.environ["DIALEVAL_TEST_FILES"] = tempfile.mkdtemp(prefix="dialeval-test-files-")
    atexit.register(shutil.rmtree, os.environ["DIALEVAL_TEST_FILES"], True)
if os.environ.get("DIALEVAL_TEST_FILES_OF") != os.environ.get("PYTEST_XDIST_WORKER", "main"):
    os.environ["DIALEVAL_TEST_FILES_OF"] = os.environ.get("PYTEST_XDIST_WORKER", "main")
    os.environ["MEDIA_ROOT"] = os.path.join(
        os.environ["DIALEVAL_TEST_FILES"], os.environ["DIALEVAL_TEST_FILES_OF"], "media"
    )
    os.environ["EMBEDDED_BROKER_DIR"] = os.path.join(
        os.environ["DIALEVAL_TEST_FILES"], os.environ["DIALEVAL_TEST_FILES_OF"], "broker"
    )

from .base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DEBUG = False
# tasks go to the broker the test command started (Redis) or, without one, nowhere: tests/conftest.py keeps what a
# test sends in an outbox, runs it in the caller where the test says why, or lets a real worker take it
if not CACHE_URL:  # noqa: F405
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

if DATABASES["default"]["ENGINE"] in ("django.db.backends.sqlite3", "config.sqlite"):  # noqa: F405
    # A file, not memory, so that subprocesses (manage.py, workers) see the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / ".test-db.sqlite3")}  # noqa: F405

# a failed webhook delivery is retried after half a second in tests (the worker started by the tests reads these too)
WEBHOOK_RETRY_SECONDS = float(env_str("WEBHOOK_RETRY_SECONDS", "0.5"))  # noqa: F405
WEBHOOK_TIMEOUT_SECONDS = float(env_str("WEBHOOK_TIMEOUT_SECONDS", "60"))  # noqa: F405
# a stale lead result is computed again at once in tests (a test asserting the spacing sets it; the deployment
# stack and the benches run the production default)
JOB_RECOMPUTE_DUTY_FACTOR = float(env_str("JOB_RECOMPUTE_DUTY_FACTOR", "0"))  # noqa: F405
