#!/usr/bin/env bash
# The gates: ruff (lint and format), mypy over the scoring library (pyproject.toml), import-linter's architecture
# contracts (pyproject.toml), no import cycle among the project's modules (scripts/check_cycles.py), djLint on the
# templates (format and rules), and a strict build of the documentation (mkdocs.yml: broken links, anchors, nav
# entries or docstrings fail it).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh --test
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports
.venv/bin/python scripts/check_cycles.py
.venv/bin/djlint templates --check
.venv/bin/djlint templates --lint
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
.venv/bin/mkdocs build --strict --site-dir "$site"
