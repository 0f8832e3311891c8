#!/usr/bin/env bash
# Sets up and runs the app on the embedded default: SQLite, the demo project, runserver and a Celery worker (with
# beat's sweeps) on the filesystem broker, a folder beside the database that needs no server. Stopping this script
# (Ctrl-C, or a TERM) stops the worker too.
# Usage: ./scripts/serve.sh [--port N]   (./scripts/serve.sh --help says so; any other argument is refused)
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  cat <<'USAGE'
Usage: ./scripts/serve.sh [--port N]

Sets up .venv (requirements.txt), migrates the embedded SQLite database, loads the demo project,
starts a background worker (imports, statistics, scoring, reports and exports run there) and
serves the app on http://127.0.0.1:N (default 8000) with Django's development server.

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

# One worker serves the three queues (two tasks at a time) and runs beat's sweeps (-B); its pool processes are
# replaced past WORKER_MAX_MEMORY_PER_CHILD_KB, and every task is bounded by its time limits (config/settings).
worker=""
server=""
stop() {
  trap - EXIT INT TERM
  # the server's autoreloader runs it in a child process: that one first
  [ -n "$server" ] && pkill -TERM -P "$server" 2>/dev/null || true
  for pid in $server $worker; do kill -TERM "$pid" 2>/dev/null || true; done
  # a worker finishing a task is given 20 s, then stopped (its job is sent again when the worker next starts)
  for _ in $(seq 40); do
    kill -0 "$worker" 2>/dev/null || break
    sleep 0.5
  done
  for pid in $server $worker; do
    pkill -KILL -P "$pid" 2>/dev/null || true  # (its pool processes and beat)
    kill -KILL "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
.venv/bin/python -m celery -A config worker -B -Q interactive,heavy,exports -n "embedded@%h" \
  --concurrency=2 --max-memory-per-child="${WORKER_MAX_MEMORY_PER_CHILD_KB:-1048576}" \
  --without-gossip --without-mingle --loglevel=WARNING &
worker=$!
echo "Serving on http://127.0.0.1:$port (users and passwords: see README.md; mail is printed here)"
.venv/bin/python manage.py runserver "127.0.0.1:$port" &
server=$!
# whichever ends first (the server, or the worker) ends the other
wait -n "$server" "$worker" || true
