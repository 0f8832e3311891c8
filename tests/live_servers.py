"""Live server processes for tests at the boundary where users meet the app: ``runserver`` as ``scripts/serve.sh``
starts it and gunicorn with the deployment's configuration (``config/gunicorn.py``), on the test database; for the
smoke suites seeded as ``serve.sh`` seeds it (``manage.py demo``) plus a few
objects the demo lacks (a lead who is not staff, a study, a run), and the users' API tokens.

Production behind its TLS proxy: the proxy on this machine tells the app the request came over HTTPS with
``X-Forwarded-Proto`` (believed from loopback, ``TRUSTED_PROXIES``), so the clients here send that header and
keep the HTTPS-only cookies over the plain-HTTP loopback connection (``LoopbackSession``); no setting is
switched off for the test.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "live-pass-for-smoke-1"  # the users the seed adds (the demo's own have the README's passwords)
PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "SECRET_KEY": "live-suite-secret-key-not-used-anywhere-else-0123456789abcdef",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
}
SEED = """
import json, django
django.setup()
from tests.live_servers import passwords_hashed_once, seed
passwords_hashed_once()
print("SEEDED " + json.dumps(seed()))
"""


def passwords_hashed_once() -> None:
    """For the rest of a process that only makes accounts (a seeding script; never the test process): each
    distinct password is hashed once, and the accounts that share it store that one hash. It is the settings'
    real hash (PBKDF2's million rounds under the production settings, which the servers check at sign-in), only
    not computed again for each account: over half a second of CPU per account the seeding makes (the deployment
    stacks' set-ups make 11 and 25)."""
    import functools

    from django.contrib.auth import base_user, hashers, models

    once = functools.lru_cache(maxsize=None)(hashers.make_password)
    base_user.make_password = models.make_password = once  # set_password's, and create_user's


def seed() -> dict:
    """The demo (``manage.py demo``, as serve.sh runs it) plus a lead who is not staff (``owner``) of every demo
    project, an outsider, a study with its link (on a project of its own, whose places are free), a scored run, a
    webhook with a failed delivery and an API token per user; answers their ids."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from annotator.models import Assignment, ImportBatch, Project, WebhookDelivery
    from annotator.services.demo import DEMO_DIR
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create
    from annotator.services.webhooks import webhook_create
    from annotator.studies.services import study_create, study_set_open
    from config.enqueue import job_send
    from evaluation.runs.services.upload import run_upload
    from tests.factories import judge_copying
    from tests.reference_scoring import random_stc3_run

    call_command("demo")
    User = get_user_model()
    owner = User.objects.create_user("owner", password=PASSWORD)
    User.objects.create_user("outsider", password=PASSWORD)
    for project in Project.objects.all():
        membership_add(project=project, user=owner, role="lead")
    stc3 = Project.objects.get(slug="demo-stc3")
    crowd = project_create(slug="smoke-study", preset="stc3", name="Crowd study", annotators_per_dialogue=1)
    dialogues_import(project=crowd, paths=[DEMO_DIR / "stc3.json"], language="en")  # places left: none assigned
    membership_add(project=crowd, user=owner, role="lead")
    study = study_set_open(study=study_create(project=crowd, name="Smoke study"), is_open=True)
    dialogues = json.loads((DEMO_DIR / "stc3.json").read_text())
    run = run_upload(project=stc3, name="random", files=[("run.json", json.dumps(random_stc3_run(dialogues)).encode())])
    ann1, ann2 = User.objects.get(username="ann1"), User.objects.get(username="ann2")
    mine = Assignment.objects.filter(annotator=ann1, dialogue__project=stc3).order_by("pk").first()
    dialogue = mine.dialogue
    criterion = stc3.criteria.order_by("position").first()
    # .invalid never resolves (RFC 2606): the smoke suites' test deliveries fail without leaving the machine
    hook, _secret = webhook_create(project=stc3, url="https://hooks.invalid/smoke", events=["import.finished"])
    delivery = WebhookDelivery.objects.create(webhook=hook, event="import.finished", payload={}, status="failed")
    judge = judge_copying(stc3, ann1.pk, "smoke-judge")
    job = job_send("evaluation.tasks.compute_study_report", stc3.pk, {"language": "en"}, project_id=stc3.pk, send=False)
    from evaluation.services.jobs import statistics_job_run

    for project in Project.objects.all():  # what a worker runs for the recomputations the seeding asked for
        statistics_job_run(project_id=project.pk)
    return {
        "slug": stc3.slug,
        "slugs": sorted(Project.objects.values_list("slug", flat=True)),
        "assignment": mine.pk,
        "assignments": sorted(Assignment.objects.filter(annotator=ann1).values_list("pk", flat=True)),
        "others_assignment": Assignment.objects.filter(annotator=ann2, dialogue__project=stc3).first().pk,
        "dialogue": dialogue.pk,
        "external_id": dialogue.external_id,
        "external_ids": sorted(stc3.dialogues.values_list("external_id", flat=True)),
        "criterion": criterion.key,
        "user": ann1.pk,
        "annotator": ann1.username,
        "batch": ImportBatch.objects.filter(project=stc3).first().pk,
        "study": study.pk,
        "study_slug": crowd.slug,
        "study_token": study.token,
        "run": run.pk,
        "webhook": hook.pk,
        "delivery": delivery.pk,
        "judge": judge.pk,
        "judge_name": judge.name,
        "job": job.pk,
        "tokens": {
            u.username: Token.objects.get_or_create(user=u)[0].key
            for u in User.objects.filter(username__in=["lead", "owner", "ann1", "outsider"])
        },
    }


def seed_database(db_url: str, settings_module: str = "config.settings.local") -> dict:
    """``seed()`` in a process with the server's settings (so that passwords are hashed as the server checks
    them), on the test database."""
    env = dict(os.environ, DATABASE_URL=db_url, DJANGO_SETTINGS_MODULE=settings_module)
    done = subprocess.run([sys.executable, "-c", SEED], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    found = re.search(r"^SEEDED (.*)$", done.stdout, re.M)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"seeding failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(found.group(1))


class LoopbackSession(requests.Session):
    """Sends the HTTPS-only cookies over loopback HTTP: the proxy's leg, where the browser's HTTPS ends.
    (Each request is prepared with the session's cookies made plain; a redirect followed within one call
    would not carry a cookie set on the way, so the suites follow redirects themselves.)"""

    def prepare_request(self, request):
        for cookie in self.cookies:
            cookie.secure = False
        return super().prepare_request(request)


@dataclass
class LiveServer:
    kind: str
    url: str
    process: subprocess.Popen
    log: Path
    headers: dict = field(default_factory=dict)  # what the proxy in front adds
    worker: subprocess.Popen | None = None  # serve.sh's worker beside it (``with_worker``), stopped with it

    def session(self) -> requests.Session:
        session = LoopbackSession()
        session.headers.update(self.headers)
        return session

    def post_form(
        self, session: requests.Session, path: str, data: dict, form_page: str, files: dict | None = None
    ) -> requests.Response:
        """Post a form as a browser does: the CSRF token from the page that shows it, the Referer of HTTPS."""
        page = session.get(f"{self.url}{form_page}", timeout=60)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        return session.post(
            f"{self.url}{path}",
            data={**data, "csrfmiddlewaretoken": token},
            files=files,
            headers={"Referer": f"{self.origin}{form_page}"},
            allow_redirects=False,
            timeout=900 if files else 60,
        )

    def login(self, username: str, password: str) -> requests.Session:
        """A session signed in through the login form, as a browser does (CSRF token, Referer over HTTPS)."""
        session = self.session()
        login = "/accounts/login/"
        answer = self.post_form(session, login, {"username": username, "password": password}, login)
        assert answer.status_code == 302, f"{username} could not sign in on {self.kind}: {answer.status_code}"
        return session

    @property
    def origin(self) -> str:
        scheme = "https" if self.headers.get("X-Forwarded-Proto") == "https" else "http"
        return f"{scheme}://{self.url.split('://', 1)[1]}"

    def token_session(self, user) -> requests.Session:
        """A session that calls the API with ``user``'s token."""
        from rest_framework.authtoken.models import Token

        session = self.session()
        session.headers["Authorization"] = f"Token {Token.objects.get_or_create(user=user)[0].key}"
        return session

    def get_done(self, session: requests.Session, url: str, *, timeout: float = 300, **kwargs) -> requests.Response:
        """GET ``url`` (an endpoint whose work runs as a job) as its clients do: while it answers 202 (the job at
        work), ask again, until it answers something else (the result, or why not) or ``timeout`` passes."""
        from tests.waiting import wait_for

        kwargs.setdefault("timeout", 120)
        answers = [session.get(url, **kwargs)]
        wait_for(  # (asked every 0.2 s: a test of every export waited half a second on each of its 60 jobs)
            lambda: answers[-1].status_code != 202 or answers.append(session.get(url, **kwargs)), timeout, every=0.2
        )
        return answers[-1]

    def stop(self) -> None:
        for process in (self.process, self.worker):
            if process is None:
                continue
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)


def _wait_until_up(server: LiveServer, timeout: float = 180) -> LiveServer:
    """``server`` once its login page answers; else it is stopped (never left running) and this raises. (gunicorn
    with the production settings took over a minute to answer on a machine loaded 29.)"""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                requests.get(f"{server.url}/accounts/login/", headers=server.headers, timeout=5)
                return server
            except (requests.ConnectionError, requests.Timeout):  # not listening yet, or its first answer is slow
                if server.process.poll() is not None:
                    raise RuntimeError(f"{server.kind} exited:\n{server.log.read_text()}") from None
                time.sleep(0.1)
        raise RuntimeError(f"{server.kind} did not answer:\n{server.log.read_text()}")
    except BaseException:
        server.stop()
        raise


@contextlib.contextmanager
def running(server: LiveServer) -> Iterator[LiveServer]:
    """``with running(start_runserver(...)) as server:`` - stopped (by its own pid) when the block ends."""
    try:
        yield server
    finally:
        server.stop()


BROKER_ENV = ("CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND", "CACHE_URL", "EMBEDDED_BROKER_DIR")


def embedded_worker_command() -> list[str]:
    """The worker ``scripts/serve.sh`` starts beside runserver (its arguments, as the script has them)."""
    return [
        sys.executable, "-m", "celery", "-A", "config", "worker", "-B", "-Q", "interactive,heavy,exports",
        "-n", "embedded@%h", "--concurrency=2", "--max-memory-per-child=1048576",
        "--without-gossip", "--without-mingle", "--loglevel=INFO",
    ]  # fmt: skip


def _beside(env: dict, log: Path, with_worker: bool) -> subprocess.Popen | None:
    """``with_worker``: serve.sh's worker (with beat) started with ``env``, the server's, on the broker the test
    process uses too (the PostgreSQL lane's Redis, or this test run's filesystem broker folder on SQLite), so that
    what a test marked ``worker`` sends reaches it as well as what the server sends. Without it, nothing: the
    server's tasks wait in that broker (on the PostgreSQL lane the suite's worker, when started, takes them)."""
    if not with_worker:
        return None
    # the latent-truth models' automatic estimate (EM over every annotator: minutes on a busy machine) an hour away,
    # not after the test run's second nor serve.sh's two minutes: the worker's two processes would be busy with the
    # estimates of every project the test makes while the pages wait for their jobs (no test of a live server with
    # this worker reads an estimate)
    env["MODEL_ESTIMATE_DELAY_SECONDS"] = "3600"
    with open(log.with_suffix(".worker.log"), "w") as out:
        return subprocess.Popen(embedded_worker_command(), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def start_runserver(db_url: str, log: Path, *, with_worker: bool = False) -> LiveServer:
    """``manage.py runserver`` with ``config.settings.local`` (debug on), as ``scripts/serve.sh`` runs it, and with
    its worker beside it when ``with_worker`` (``_beside``)."""
    from services import free_port  # scripts/services.py (tests/conftest.py puts scripts/ on the path)

    port = free_port()
    env = dict(os.environ, DATABASE_URL=db_url, DJANGO_SETTINGS_MODULE="config.settings.local")
    env.pop("DEBUG", None)
    worker = _beside(env, log, with_worker)
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    return _wait_until_up(LiveServer("runserver", f"http://127.0.0.1:{port}", process, log, worker=worker))


def serve_script_sandbox(folder: Path) -> Path:
    """The repository's code seen through symlinks from ``folder``, with ``scripts/serve.sh`` copied and
    ``bootstrap.sh`` a no-op (a test must not install into the shared .venv): the README's first command, run
    as it is, on the SQLite file ``DATABASE_URL`` names."""
    box = folder / "repo"
    box.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in ("scripts", ".venv", ".git", "db.sqlite3"):
            (box / entry.name).symlink_to(entry)
    (box / ".venv").symlink_to(Path(sys.prefix))
    (box / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "serve.sh", box / "scripts" / "serve.sh")
    stub = box / "scripts" / "bootstrap.sh"
    stub.write_text("#!/usr/bin/env bash\nexit 0\n")
    stub.chmod(0o755)
    return box


class ServeScript(LiveServer):
    """``./scripts/serve.sh --port N`` in its own process group (the script, runserver and its reloader)."""

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)


def start_serve_script(folder: Path) -> ServeScript:
    """``./scripts/serve.sh`` as a person runs it (migrate, the demo, runserver with the local settings and its
    worker on the filesystem broker beside the database) in a sandbox under ``folder`` on its own SQLite file
    ``folder/serve.sqlite3``; answers once the login page does (the log in ``folder/serve.log``)."""
    from services import free_port

    box = serve_script_sandbox(folder)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DEBUG", *BROKER_ENV)}
    env["DATABASE_URL"] = f"sqlite:///{folder / 'serve.sqlite3'}"
    log = folder / "serve.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [str(box / "scripts" / "serve.sh"), "--port", str(port)],
            cwd=box, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    # (serve.sh migrates a new database and loads the demo before it serves)
    return _wait_until_up(ServeScript("serve.sh", f"http://127.0.0.1:{port}", process, log), timeout=300)


def collect_static(env: dict[str, str]) -> None:
    """``manage.py collectstatic`` with the production settings, as the image runs it, once per run of the suite:
    the test processes of a pytest-xdist run share ``STATIC_ROOT`` (a lock keeps a second one from reading or
    writing it while the first writes), and a later server of the same run finds the files collected."""
    static_root = ROOT / "staticfiles"
    static_root.mkdir(exist_ok=True)
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid-{os.getpid()}"
    stamp = static_root / f".collected-{run}"
    with open(static_root / ".collecting.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists():
            return
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT, env=env, check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        for old in static_root.glob(".collected-*"):
            old.unlink()
        stamp.touch()


def start_gunicorn(
    db_url: str,
    log: Path,
    *,
    production: bool = True,
    workers: int = 1,
    access_log_format: str = "",
    with_worker: bool = False,
    **env_extra: str,
) -> LiveServer:
    """gunicorn with ``config/gunicorn.py``, one worker (or ``workers``; ``access_log_format``: gunicorn's
    ``--access-logformat``, the access log being in ``log``). With ``config.settings.production`` (static files
    collected first, as the image does) the clients speak as the TLS proxy on loopback does; with
    ``production=False`` it runs the test settings, whose password hasher checks the test factories' users.
    ``with_worker``: a Celery worker (with beat) beside it on the filesystem broker (``_beside``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECURE_SSL_REDIRECT")}
    if production:
        env.update(PRODUCTION_ENV)
    else:
        env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    env.update(DATABASE_URL=db_url, **env_extra)
    if production:
        collect_static(env)
    from services import free_port

    port = free_port()
    worker = _beside(env, log, with_worker)
    with open(log, "w") as out:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py",
                "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "config.wsgi:application",
                *(["--access-logformat", access_log_format] if access_log_format else []),
            ],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    headers = {"X-Forwarded-Proto": "https"} if production else {}
    server = LiveServer("gunicorn", f"http://127.0.0.1:{port}", process, log, headers, worker=worker)
    return _wait_until_up(server)


class WebhookReceiver:
    """``tests/webhook_receiver.py`` started as its own process on a free loopback port, with its log of requests."""

    def __init__(self, log: Path):
        self.log = log
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "webhook_receiver.py"), str(log)], stdout=subprocess.PIPE, text=True
        )
        self.port = int(self.process.stdout.readline())

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def entries(self, phase: str, path: str | None = None) -> list[dict]:
        if not self.log.exists():
            return []
        rows = [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]
        return [r for r in rows if r["phase"] == phase and (path is None or r["path"] == path)]

    def release(self) -> None:
        self.log.with_name(self.log.name + ".release").touch()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


class HostileReceiver:
    """``tests/hostile_receiver.py`` (redirects, trickles, huge answers, an internal service's secret) as its own
    process on ``address`` (a free port, or ``port``), with its log of requests."""

    def __init__(self, log: Path, address: str = "127.0.0.1", port: int = 0):
        self.log, self.address = log, address
        command = [sys.executable, str(ROOT / "tests" / "hostile_receiver.py"), str(log), address, str(port)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline())

    def url(self, path: str) -> str:
        return f"http://{self.address}:{self.port}{path}"

    def requests(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


class ChatEndpoint:
    """``tests/chat_endpoint_server.py`` (an OpenAI-compatible chat completions server) as its own process on a
    free loopback port, with its log of requests."""

    def __init__(self, log: Path, *, flaky: bool = False):
        self.log = log
        command = [sys.executable, str(ROOT / "tests" / "chat_endpoint_server.py"), str(log)]
        self.process = subprocess.Popen(command + (["--flaky"] if flaky else []), stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def requests(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
