#!/usr/bin/env bash
# Sets up and runs the whole test suite with real services: the gates (ruff, import-linter), then a
# throwaway PostgreSQL cluster, redis-server and a Celery worker on loopback, headless Chromium;
# then the SQLite subset. Arguments go to pytest (and skip the gates), e.g. ./scripts/test.sh -k import
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --test
if [ $# -eq 0 ]; then
  ./scripts/lint.sh
fi
exec .venv/bin/python scripts/run_tests.py "$@"
