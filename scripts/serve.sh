#!/usr/bin/env bash
# Sets up and runs the app on the embedded default: SQLite, in-process tasks, the demo project.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh
export DJANGO_SETTINGS_MODULE=config.settings.local
.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py demo
echo "Serving on http://127.0.0.1:8000 (users and passwords: see README.md)"
exec .venv/bin/python manage.py runserver 127.0.0.1:8000
