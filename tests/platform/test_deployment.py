"""Settings, migrations and the docker-compose file refer to things that exist and pass Django's checks."""

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args, **env):
    full_env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=300
    )


def test_production_settings_pass_check_deploy():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="a-long-random-production-secret-key-with-enough-entropy-1234567890",
        ALLOWED_HOSTS="eval.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_a_missing_secret():
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.production", "SECRET_KEY": ""}
    result = run_manage("check", **env)
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr


def test_migrations_are_committed():
    result = run_manage("makemigrations", "--check", "--dry-run", DJANGO_SETTINGS_MODULE="config.settings.local")
    assert result.returncode == 0, result.stdout + result.stderr


def test_docker_compose_services_refer_to_real_things():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"web", "worker-interactive", "worker-heavy", "worker-exports", "db", "redis"}
    assert (ROOT / "Dockerfile").exists()
    assert "gunicorn config.wsgi:application" in services["web"]["command"]
    # a worker service per queue, and every queue the routes name is served
    from django.conf import settings

    served = set()
    for queue in settings.TASK_QUEUES:
        command = services[f"worker-{queue}"]["command"]
        assert command.startswith("celery -A config worker") and f"-Q {queue} " in command
        served.add(queue)
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()} | {settings.CELERY_TASK_DEFAULT_QUEUE}
    assert routed <= served
    # the modules the commands name import, and the app they name is our Celery app
    from config.celery import app as celery_app
    from config.wsgi import application  # noqa: F401

    assert celery_app.main == "dialeval"
    settings_module = services["web"]["environment"]["DJANGO_SETTINGS_MODULE"]
    assert (ROOT / (settings_module.replace(".", "/") + ".py")).exists()
    # every variable the app services set is one the settings read
    settings_text = "".join(p.read_text() for p in (ROOT / "config" / "settings").glob("*.py"))
    for name in services["web"]["environment"]:
        if name != "DJANGO_SETTINGS_MODULE":
            assert re.search(rf'["\']{name}["\']', settings_text), f"{name} is not read by the settings"
    volumes = set(compose["volumes"])
    for service in services.values():
        for volume in service.get("volumes", []):
            assert volume.split(":")[0] in volumes
