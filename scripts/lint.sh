#!/usr/bin/env bash
# The gates: ruff (lint and format) and import-linter's architecture contracts (pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --test
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports
