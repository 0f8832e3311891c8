#!/usr/bin/env bash
# Sets up and runs the whole test suite with real services: the gates (ruff, import-linter), then the
# PostgreSQL lane (a throwaway PostgreSQL cluster, redis-server and a Celery worker on loopback, headless
# Chromium) and the SQLite lane (every test not marked postgres, no services).
# Arguments go to pytest (and skip the gates), e.g. ./scripts/test.sh -k import
# ./scripts/test.sh --fast [pytest args]: the inner loop - SQLite only, no services, no browser, worker,
# shared-data or PostgreSQL tests; prints its wall time at the end. See scripts/run_tests.py.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --test
if [ $# -eq 0 ]; then
  ./scripts/lint.sh
fi
exec .venv/bin/python scripts/run_tests.py "$@"
