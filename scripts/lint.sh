#!/usr/bin/env bash
# The gates: ruff (lint and format), import-linter's architecture contracts and djLint on the templates (pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --test
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports
.venv/bin/djlint templates --check
.venv/bin/djlint templates --lint
