"""Settings, migrations and the docker-compose file refer to things that exist and pass Django's checks."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
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
    assert set(services) == {
        "proxy",
        "web",
        "worker-interactive",
        "worker-heavy",
        "worker-exports",
        "beat",
        "db",
        "redis",
    }
    assert (ROOT / "Dockerfile").exists()
    assert "gunicorn -c config/gunicorn.py config.wsgi:application" in services["web"]["command"]
    assert services["beat"]["command"].startswith("celery -A config beat")
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
    # every variable the app services set is one the settings (or gunicorn's config) read
    settings_text = "".join(p.read_text() for p in (ROOT / "config" / "settings").glob("*.py"))
    settings_text += (ROOT / "config" / "gunicorn.py").read_text()
    for name in services["web"]["environment"]:
        if name != "DJANGO_SETTINGS_MODULE":
            assert re.search(rf'["\']{name}["\']', settings_text), f"{name} is not read by the settings"
    volumes = set(compose["volumes"])
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert source in volumes or (ROOT / source).exists(), volume
    # beat's schedule names a task the workers have
    from django.conf import settings

    celery_app.loader.import_default_modules()  # the apps' tasks modules, as a worker's autodiscovery does
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in celery_app.tasks


def test_only_the_tls_proxy_is_published_and_only_it_is_trusted():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    # one way in: the proxy's ports; gunicorn is reachable only on the networks
    assert {name for name, service in services.items() if service.get("ports")} == {"proxy"}
    assert sorted(services["proxy"]["ports"]) == ["443:443", "80:80"]
    # the edge network holds the proxy and web alone, and it is what the app trusts forwarded headers from
    on_edge = {name for name, service in services.items() if "edge" in service.get("networks", [])}
    assert on_edge == {"proxy", "web"}
    subnet = compose["networks"]["edge"]["ipam"]["config"][0]["subnet"]
    assert services["web"]["environment"]["TRUSTED_PROXIES"] == subnet
    # Caddy terminates TLS (self-signed by default) and forwards to gunicorn
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in services["proxy"]["volumes"]
    assert "tls {$TLS_MODE:internal}" in caddyfile and services["proxy"]["environment"]["TLS_MODE"].endswith(
        ":-internal}"
    )
    assert "reverse_proxy web:8000" in caddyfile


def compose_default(value: str) -> str:
    """``${NAME:-default}`` as docker compose reads it with NAME unset."""
    found = re.fullmatch(r"\$\{\w+:-(.*)\}", value)
    return found.group(1) if found else value


def gunicorn_config(**env) -> dict[str, str]:
    full_env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL",)}
    full_env.update(env, DJANGO_SETTINGS_MODULE="config.settings.test")
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "--print-config", "config.wsgi:application"],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return {
        k.strip(): v.strip() for k, v in (line.split(" = ", 1) for line in result.stdout.splitlines() if " = " in line)
    }


def test_gunicorn_waits_as_long_as_the_longest_page_and_trusts_only_the_proxy():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    web_env = compose["services"]["web"]["environment"]
    subnet = compose_default(compose["networks"]["edge"]["ipam"]["config"][0]["subnet"])
    config = gunicorn_config(TRUSTED_PROXIES=subnet, GUNICORN_TIMEOUT=compose_default(web_env["GUNICORN_TIMEOUT"]))
    timeout = int(config["timeout"].strip())
    assert timeout >= 300 and web_env["GUNICORN_TIMEOUT"] == "${GUNICORN_TIMEOUT:-300}"
    assert config["forwarded_allow_ips"].strip() == f"['{subnet}']"
    # and the proxy waits for gunicorn at least as long
    proxy_timeout = re.search(r"PROXY_TIMEOUT:-(\d+)s", compose["services"]["proxy"]["environment"]["PROXY_TIMEOUT"])
    assert int(proxy_timeout.group(1)) > timeout


PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "SECRET_KEY": "a-long-random-production-secret-key-with-enough-entropy-1234567890",
    "ALLOWED_HOSTS": "eval.example.org,testserver",
}


@pytest.mark.django_db(transaction=True)
def test_the_demo_refuses_to_run_with_the_production_settings():
    from django.contrib.auth import get_user_model

    from tests.conftest import database_url

    result = run_manage("demo", DATABASE_URL=database_url(), **PRODUCTION)
    assert result.returncode != 0 and "does not run with these settings" in result.stderr
    assert not get_user_model().objects.filter(username="lead").exists()


def test_the_browsable_api_is_off_in_production():
    code = (
        "from django.test import Client\n"
        "r = Client().get('/api/projects/', HTTP_ACCEPT='text/html', secure=True)\n"
        "print(r.status_code, r['Content-Type'])\n"
        "r = Client().get('/api/projects/?format=api', secure=True)\n"
        "print(r.status_code, r['Content-Type'])\n"
    )
    result = run_manage("shell", "-c", code, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    answers = [line.split(" ", 1) for line in result.stdout.splitlines() if line[:3].isdigit()]
    # a browser asking for HTML gets JSON (406: not offered), and ?format=api is no renderer at all
    assert answers == [["406", "application/json"], ["404", "application/json"]], result.stdout


def test_production_settings_over_plain_http_on_loopback_without_editing_code():
    code = (
        "from django.test import Client\n"
        "from django.conf import settings as s\n"
        "r = Client(HTTP_HOST='localhost').get('/api/projects/')\n"
        "print(r.status_code, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, 'Strict-Transport-Security' in r)\n"
    )
    loopback = {**PRODUCTION, "ALLOWED_HOSTS": "localhost,127.0.0.1", "HTTPS_ONLY": "false"}
    result = run_manage("shell", "-c", code, **loopback)
    assert result.returncode == 0, result.stderr
    # answered over plain HTTP (401: no token), not redirected; cookies without Secure; no HSTS
    assert result.stdout.split()[-4:] == ["401", "False", "False", "False"]
    # and with any other host the switch is refused
    refused = run_manage("check", **{**loopback, "ALLOWED_HOSTS": "eval.example.org"})
    assert refused.returncode != 0 and "HTTPS_ONLY=false" in refused.stderr


def test_the_image_compiles_every_package_of_the_platform(tmp_path):
    """The image sets PYTHONDONTWRITEBYTECODE, so its code is compiled at build time, every package of it."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "PYTHONDONTWRITEBYTECODE=1" in dockerfile
    command = re.search(r"^RUN (python -m compileall -q .+)$", dockerfile, re.MULTILINE)
    assert command, "the Dockerfile compiles the platform's code"
    packages = command.group(1).split()[4:]
    ours = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests"}
    assert set(packages) == ours
    # the command as the image runs it compiles every module of those packages
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path)}
    subprocess.run([sys.executable, *command.group(1).split()[1:]], cwd=ROOT, env=env, check=True, timeout=300)
    tag = sys.implementation.cache_tag
    sources = [p for package in packages for p in (ROOT / package).rglob("*.py")]
    missing = [s for s in sources if not (tmp_path / s.parent.relative_to("/") / f"{s.stem}.{tag}.pyc").exists()]
    assert len(sources) > 200 and not missing, missing[:5]
