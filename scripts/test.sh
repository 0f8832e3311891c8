#!/usr/bin/env bash
# Sets up and runs the whole test suite with real services: a throwaway PostgreSQL cluster,
# redis-server and a Celery worker on loopback, headless Chromium; then the SQLite subset.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --test
exec .venv/bin/python scripts/run_tests.py "$@"
