#!/usr/bin/env bash
# Creates .venv and installs the Python requirements (runtime, or with --test the test ones too).
# Idempotent: pip runs again only when a requirements file changed.
set -euo pipefail
cd "$(dirname "$0")/.."
want=requirements.txt
[ "${1:-}" = "--test" ] && want=requirements-test.txt
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.installed-$(basename "$want" .txt)
digest=$(cat requirements*.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$want"
  echo "$digest" > "$stamp"
fi
