#!/usr/bin/env bash
# Sets up and runs the app on the embedded default: SQLite, in-process tasks, the demo project.
# Usage: ./scripts/serve.sh [--port N]   (./scripts/serve.sh --help says so; any other argument is refused)
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  cat <<'USAGE'
Usage: ./scripts/serve.sh [--port N]

Sets up .venv (requirements.txt), migrates the embedded SQLite database, loads the demo project
and serves the app on http://127.0.0.1:N (default 8000) with Django's development server.

  --port N   listen on port N (1-65535) instead of 8000
  --help     show this help and exit
USAGE
}
port=8000
while [ $# -gt 0 ]; do
  case "$1" in
    --help | -h) usage; exit 0 ;;
    --port) [ $# -ge 2 ] || { echo "serve.sh: --port needs a number" >&2; usage >&2; exit 2; }
      port=$2; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    *) echo "serve.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
if ! [[ "$port" =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
  echo "serve.sh: --port needs a number from 1 to 65535, not '$port'" >&2
  usage >&2
  exit 2
fi
./scripts/bootstrap.sh
export DJANGO_SETTINGS_MODULE=config.settings.local
.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py demo
echo "Serving on http://127.0.0.1:$port (users and passwords: see README.md; mail is printed here)"
exec .venv/bin/python manage.py runserver "127.0.0.1:$port"
