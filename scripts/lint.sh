#!/usr/bin/env bash
# The gates: ruff (lint and format), import-linter's architecture contracts (pyproject.toml) and no import cycle.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --test
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports
.venv/bin/python scripts/check_cycles.py
