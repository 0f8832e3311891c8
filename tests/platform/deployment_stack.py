"""The deployment as docker-compose describes it, without Docker, on loopback: Caddy (Debian's package, TLS
from its internal CA) in front of gunicorn with the production settings, a Celery worker per queue, beat,
PostgreSQL and Redis of their own (a throwaway cluster: the test restarts it).

Each application process is started in its own session so that a SIGKILL of its process group is what a
container's kill is; ``restart`` starts it again as the compose file's ``restart: unless-stopped`` would.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests
from requests.adapters import HTTPAdapter
from services import Services, free_ports  # scripts/services.py (tests/conftest.py puts scripts/ on the path)

from tests.live_servers import collect_static

ROOT = Path(__file__).resolve().parents[2]
SECRET = "a-long-random-secret-key-for-the-deployment-test-0123456789-abcdefghij"
QUEUES = ("interactive", "heavy", "exports")


class FromAddress(HTTPAdapter):
    """Connections from ``address`` (any of 127.0.0.0/8): a distinct client as the proxy sees it."""

    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__(pool_maxsize=4)

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        return super().init_poolmanager(*args, **kwargs)


def compose_command(service: str) -> list[str]:
    """The compose file's command of ``service`` (the workers' at concurrency 1: the machine is small)."""
    import yaml

    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"][service]["command"]
    command = re.sub(r"--concurrency=\d+", "--concurrency=1", command).replace("%h", "stack")
    return [sys.executable, "-m", *command.split()]


class Stack:
    def __init__(self, tmp: Path, extra_env: dict[str, str] | None = None) -> None:
        self.tmp = tmp
        self.extra_env = extra_env or {}  # more settings for every process (mail, outgoing requests, limits)
        self.services = Services(redis_appendonly=True)
        self.web_port, self.proxy_port, self.proxy_http_port = free_ports(3)
        self.processes: dict[str, subprocess.Popen] = {}
        self.env: dict[str, str] = {}
        self.world: dict = {}  # what the test set up in the database (accounts, tokens, items)

    @property
    def url(self) -> str:
        return f"https://localhost:{self.proxy_port}"

    @property
    def ca(self) -> str:
        return str(self.tmp / "caddy-data" / "caddy" / "pki" / "authorities" / "local" / "root.crt")

    def start(self) -> None:
        found = self.services.start()
        redis = f"redis://127.0.0.1:{self.services.redis_port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_", "DATABASE_"))}
        self.env = dict(
            env,
            DJANGO_SETTINGS_MODULE="config.settings.production",
            SECRET_KEY=SECRET,
            ALLOWED_HOSTS="localhost",
            DATABASE_URL=found["DATABASE_URL"],
            CELERY_BROKER_URL=f"{redis}/0",
            CELERY_RESULT_BACKEND=f"{redis}/1",
            CACHE_URL=f"{redis}/2",
            MEDIA_ROOT=str(self.tmp / "media"),
            HOME=str(self.tmp),  # gunicorn's control socket, celery's files: this stack's own
            TRUSTED_PROXIES="127.0.0.1,::1",
            GUNICORN_BIND=f"127.0.0.1:{self.web_port}",
            GUNICORN_WORKERS="2",
            # short enough to watch within the test: the statistics' debounce and the models' delay, the
            # take-over of a recomputation whose worker died, the queues' limits and the redelivery of a task
            # whose worker was killed (the visibility timeout exceeds every task here)
            STATISTICS_DEBOUNCE_SECONDS="1",
            MODEL_ESTIMATE_DELAY_SECONDS="1",
            STATISTICS_TAKEOVER_GRACE_SECONDS="5",
            TASK_TIME_LIMIT_INTERACTIVE="90",
            TASK_TIME_LIMIT_HEAVY="90",
            TASK_TIME_LIMIT_EXPORTS="90",
            CELERY_VISIBILITY_TIMEOUT="30",
            RUN_SWEEP_SECONDS="5",
            RUN_REQUEUE_AFTER_SECONDS="30",
            WORKER_NICENESS="10",
            **self.extra_env,
        )
        collect_static(self.env)  # into the checkout's STATIC_ROOT, shared with the other test processes
        self.manage("migrate", "--noinput")
        self.start_process("web")
        for queue in QUEUES:
            self.start_process(f"worker-{queue}")
        self.start_process("beat")
        self.start_caddy()
        self.wait_until_served()

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=600
        )
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)}:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def shell_json(self, code: str):
        """Run ``code`` in ``manage.py shell`` under the production settings; it prints one JSON document last."""
        return json.loads(self.manage("shell", "-c", code).strip().splitlines()[-1])

    def start_process(self, name: str) -> None:
        if name == "web":
            command = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"]
        else:
            command = compose_command(name)
            if name == "beat":
                command[command.index("/tmp/celerybeat-schedule")] = str(self.tmp / "celerybeat-schedule")
        with open(self.tmp / f"{name}.log", "a") as log:
            self.processes[name] = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def kill(self, name: str) -> None:
        """SIGKILL the process group of ``name``, as a container's kill does."""
        process = self.processes[name]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def restart(self, name: str) -> None:
        self.start_process(name)

    def start_caddy(self) -> None:
        """The shipped Caddyfile (its global options, ``admin off`` among them, kept) on this stack's ports."""
        shipped = (ROOT / "deploy" / "Caddyfile").read_text()
        assert "reverse_proxy web:8000" in shipped and "\n{\n\tadmin off\n" in shipped
        site = shipped.replace("reverse_proxy web:8000", f"reverse_proxy 127.0.0.1:{self.web_port}")
        site = site.replace("\tencode gzip\n", "\tencode gzip\n\tbind 127.0.0.1\n")
        ours = (
            "\tskip_install_trust\n"
            f"\thttp_port {self.proxy_http_port}\n\thttps_port {self.proxy_port}\n"
            f"\tstorage file_system {{\n\t\troot {self.tmp / 'caddy-data' / 'caddy'}\n\t}}\n"
        )
        site = site.replace("\n{\n\tadmin off\n", "\n{\n\tadmin off\n" + ours, 1)
        (self.tmp / "Caddyfile").write_text(site)
        env = {
            "HOME": str(self.tmp),
            "XDG_DATA_HOME": str(self.tmp / "caddy-data"),
            "XDG_CONFIG_HOME": str(self.tmp / "caddy-config"),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "SITE_ADDRESS": f"localhost:{self.proxy_port}",
        }
        with open(self.tmp / "caddy.log", "a") as log:
            self.processes["caddy"] = subprocess.Popen(
                ["caddy", "run", "--config", str(self.tmp / "Caddyfile"), "--adapter", "caddyfile"],
                cwd=self.tmp,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def session(self, address: str = "127.0.0.1") -> requests.Session:
        """A client from ``address`` that trusts Caddy's internal CA (and nothing else)."""
        session = requests.Session()
        session.trust_env = False  # REQUESTS_CA_BUNDLE would replace the CA below, and no proxy from the environment
        session.verify = self.ca
        session.mount("https://", FromAddress(address))
        return session

    def wait_until_served(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while True:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited:\n{self.log(name)}")
            problem = "no root certificate yet"
            try:
                if Path(self.ca).exists():
                    answer = self.session().get(f"{self.url}/accounts/login/", timeout=5)
                    if answer.ok:
                        return
                    problem = f"{answer.status_code}: {answer.text[:500]}"
            except requests.RequestException as exc:
                problem = str(exc)
            if time.monotonic() > deadline:
                raise RuntimeError(f"not served in {timeout} s ({problem}):\n{self.log('caddy')}\n{self.log('web')}")
            time.sleep(0.5)

    def log(self, name: str) -> str:
        path = self.tmp / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        self.services.stop()
