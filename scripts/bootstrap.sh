#!/usr/bin/env bash
# Creates .venv and installs the Python requirements:
#   ./scripts/bootstrap.sh           the runtime (requirements.txt): the embedded default, lean
#   ./scripts/bootstrap.sh --models  the runtime and the "models" extra (Dawid-Skene, GLAD via crowd-kit)
#   ./scripts/bootstrap.sh --test    everything the tests need: the runtime, every extra, the test tools
# Idempotent: pip runs again only when a requirements file changed. crowd-kit is installed with --no-deps
# (requirements-models-nodeps.txt): its declared dependencies pull transformers and pyarrow it never imports.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=runtime
case "${1:-}" in
  "") ;;
  --models) mode=models ;;
  --test) mode=test ;;
  *) echo "usage: $0 [--models | --test]" >&2; exit 2 ;;
esac
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# --no-compile: Python compiles a module when it is first imported; compiling every installed file up front
# took about 12 s and 80 MB of the runtime install (docs/deployment.md#what-to-install)
pip() { .venv/bin/python -m pip --disable-pip-version-check "$@" --no-compile; }
stamp=.venv/.installed-$mode
digest=$(cat requirements*.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ]; then
  pip install --quiet --upgrade pip >/dev/null
  case $mode in
    runtime) pip install --quiet -r requirements.txt ;;
    models) pip install --quiet -r requirements.txt -r requirements-models.txt ;;
    test) pip install --quiet -r requirements-test.txt ;;
  esac
  if [ "$mode" != runtime ]; then
    pip install --quiet --no-deps -r requirements-models-nodeps.txt
  fi
  echo "$digest" > "$stamp"
fi
