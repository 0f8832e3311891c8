"""The deployment as docker-compose describes it, without Docker (``tests/platform/deployment_stack.py``):
Caddy with TLS from its internal CA in front of gunicorn with the production settings, a worker per queue,
beat, PostgreSQL and Redis on loopback. Everything below goes through the proxy, as a user's browser or
script would.

- a lockout of one client leaves another client's login working (each client connects from its own
  loopback address, so the proxy sees two clients);
- with Redis stopped, page and API saves, token requests and new study participants succeed;
- a webhook aimed at an internal service reaches nothing, and the endpoint judges' key never follows a redirect
  to another server (``outbound_cases``);
- hostile uploads end failed with a message;
- clients saving while each worker kind is SIGKILLed, Redis is stopped and PostgreSQL restarted lose no
  acknowledged answer and leave no job unended past its time limit; the counts are printed.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
import requests

from tests.fixtures.collections import stc3_dialogues
from tests.platform.deployment_stack import QUEUES, Stack
from tests.platform.outbound_cases import judge_key_redirect, receivers, webhook_to_internal_service
from tests.reference_scoring import random_stc3_run
from tests.waiting import wait_for

pytestmark = [
    pytest.mark.deployment,
    pytest.mark.postgres(reason="the deployment runs on PostgreSQL; the test starts and restarts a cluster of its own"),
]

PASSWORD = "pw-for-tests-1"  # tests.factories.PASSWORD, which the set-up below gives every account
CLIENTS = 10
TIME_LIMIT = 90  # TASK_TIME_LIMIT_* of the stack (deployment_stack.Stack.start)
VISIBILITY = 30  # CELERY_VISIBILITY_TIMEOUT: a killed worker's task is handed out again after this...
RESTORE_SCAN = 100  # ...at the next scan for such tasks, which kombu's Redis transport makes every 100 s

SETUP = """
import json, tempfile
from pathlib import Path
from tests.live_servers import passwords_hashed_once
passwords_hashed_once()  # the accounts' one password hashed once, not per account
from annotator.services.accounts import token_issue
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create
from tests.factories import project_with_work, study_on_new_project
from tests.fixtures.collections import stc3_dialogues

work = project_with_work("stc3", slug="load", annotators=%(clients)d)
values = work.project.criteria.get(key="A").allowed_values()
clients = [
    {"username": p.username, "token": token_issue(user=p).key, "items": [a.pk for a in work.assignments_of(p)][:3]}
    for p in work.annotators
]
for slug, preset in (("hostile", "dch1"), ("runs", "stc3")):
    project = project_create(slug=slug, preset=preset)
    membership_add(project=project, user=work.lead, role="lead")
path = Path(tempfile.mkdtemp()) / "gold.json"
path.write_text(json.dumps(stc3_dialogues()))
dialogues_import(project=project, paths=[path])
_crowd, study = study_on_new_project(Path(tempfile.mkdtemp()))
print(json.dumps({
    "clients": clients, "values": values, "lead_token": token_issue(user=work.lead).key, "study": study.token
}))
"""

STATE = """
import json
from annotator.models import ImportBatch, ImportStatus, Judgement
from evaluation.models import Run, RunStatus, StatisticsJob

answers = {
    f"{a}:{c}:{u}": v
    for a, c, u, v in Judgement.objects.filter(assignment__dialogue__project__slug="load").values_list(
        "assignment_id", "criterion__key", "unit", "value"
    )
}
hostile = {"file_names__startswith": "hostile-"}  # test_hostile_uploads_end_failed_with_a_message counts those
unended = {
    "imports": ImportBatch.objects.filter(status__in=[ImportStatus.PENDING, ImportStatus.RUNNING])
    .exclude(**hostile)
    .count(),
    "runs": Run.objects.filter(status=RunStatus.PENDING).exclude(name__startswith="hostile-").count(),
    "statistics": StatisticsJob.objects.filter(pending=True).count(),
    "model estimates": StatisticsJob.objects.filter(models_pending=True).count(),
}
print(json.dumps({"answers": answers, "unended": unended}))
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """An internal service, a key's endpoint that redirects, and where it redirects to (outbound_cases)."""
    with receivers(tmp_path_factory.mktemp("receivers")) as found:
        yield found


@pytest.fixture(scope="module")
def trickler(tmp_path_factory):
    """A webhook receiver on loopback the operator allowed (``OUTBOUND_ALLOWED_HOSTS``, its port only) that
    answers its status line and headers a byte every 0.5 s (``tests/hostile_receiver.py``'s ``/trickle-headers``;
    a body that trickles after a 200 holds nothing: the delivery keeps only the status line)."""
    from tests.live_servers import HostileReceiver

    receiver = HostileReceiver(tmp_path_factory.mktemp("trickler") / "trickler.jsonl")
    yield receiver
    receiver.stop()


@pytest.fixture(scope="module")
def stack(tmp_path_factory, hostile, trickler):
    allowed = {"OUTBOUND_ALLOWED_HOSTS": f"127.0.0.1:{trickler.port}"}
    running = Stack(tmp_path_factory.mktemp("stack"), extra_env={**hostile.env(), **allowed})
    try:
        running.start()
        running.world = running.shell_json(SETUP % {"clients": CLIENTS})
        yield running
    finally:
        running.stop()


def csrf_of(page: requests.Response) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)


def page_login(stack: Stack, session: requests.Session, username: str, password: str) -> requests.Response:
    url = f"{stack.url}/accounts/login/"
    token = csrf_of(session.get(url, timeout=30))
    return session.post(
        url,
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        headers={"Referer": url},
        allow_redirects=False,
        timeout=30,
    )


def token_request(stack: Stack, session: requests.Session, username: str, password: str, **headers):
    body = {"username": username, "password": password}
    return session.post(f"{stack.url}/api/auth/token/", json=body, headers=headers, timeout=30)


def page_save(stack: Stack, session: requests.Session, item: int, value: str) -> requests.Response:
    """The annotation page's save: the API's, with the signed-in session and its CSRF token."""
    url = f"{stack.url}/api/assignments/{item}/judgements/"
    headers = {"X-CSRFToken": session.cookies.get("csrftoken", ""), "Referer": f"{stack.url}/items/{item}/"}
    return session.post(
        url, json={"judgements": [{"criterion": "A", "unit": 0, "value": value}]}, headers=headers, timeout=60
    )


def api_save(stack: Stack, session: requests.Session, token: str, item: int, value: str) -> requests.Response:
    body = {"judgements": [{"criterion": "A", "unit": 0, "value": value}]}
    headers = {"Authorization": f"Token {token}"}
    return session.post(f"{stack.url}/api/assignments/{item}/judgements/", json=body, headers=headers, timeout=60)


def lead(stack: Stack) -> requests.Session:
    session = stack.session("127.0.2.1")
    session.headers["Authorization"] = f"Token {stack.world['lead_token']}"
    return session


def upload_import(stack: Stack, name: str, content: bytes) -> requests.Response:
    url = f"{stack.url}/api/projects/hostile/dialogues/import/"
    return lead(stack).post(url, files={"file": (name, content)}, data={"format": "auto"}, timeout=60)


def upload_run(stack: Stack, name: str, content: bytes) -> requests.Response:
    url = f"{stack.url}/api/projects/runs/runs/"
    return lead(stack).post(url, files={"files": ("run.json", content)}, data={"name": name}, timeout=60)


def jsonl_dialogue(meta: str) -> bytes:
    turns = '[{"speaker": "customer", "text": "my card"}, {"speaker": "helpdesk", "text": "call us"}]'
    return f'{{"id": "h1", "turns": {turns}, "meta": {meta}}}\n'.encode()


def stc3_run(first_id: str) -> bytes:
    """A run on the ``runs`` project's gold whose first dialogue id is ``first_id`` (JSON text, escapes kept)."""
    text = json.dumps(random_stc3_run(stc3_dialogues(), 1))
    return text.replace('"id": "d1"', f'"id": "{first_id}"', 1).encode()


# -- One client locked out, the others not ------------------------------------------------------------------


def test_a_lockout_of_one_client_leaves_another_clients_login_working(stack):
    annotator = stack.world["clients"][0]["username"]
    sprayer, other = stack.session("127.0.3.1"), stack.session("127.0.3.2")
    # ten wrong passwords from one client (at accounts that do not exist: its address is what gets locked)
    for attempt in range(10):
        token_request(stack, sprayer, f"guess-{attempt}", "wrong")
    assert token_request(stack, sprayer, annotator, PASSWORD).status_code == 429
    # a forged X-Forwarded-For does not get it out: the proxy writes the address it saw
    assert token_request(stack, sprayer, annotator, PASSWORD, **{"X-Forwarded-For": "192.0.2.7"}).status_code == 429
    assert page_login(stack, sprayer, annotator, PASSWORD).status_code == 429
    # another client, through the same proxy, logs in on the page and gets a token
    assert page_login(stack, other, annotator, PASSWORD).status_code == 302
    assert token_request(stack, other, annotator, PASSWORD).status_code == 200


# -- Redis down ---------------------------------------------------------------------------------------------


def test_with_redis_stopped_saves_tokens_and_new_participants_succeed(stack, capsys):
    first, second = stack.world["clients"][1:3]
    browser, script = stack.session("127.0.4.1"), stack.session("127.0.4.2")
    assert page_login(stack, browser, first["username"], PASSWORD).status_code == 302
    stack.services.stop_redis()
    try:
        started = time.monotonic()
        page = page_save(stack, browser, first["items"][0], stack.world["values"][0])
        api = api_save(stack, script, second["token"], second["items"][0], stack.world["values"][0])
        token = token_request(stack, script, second["username"], PASSWORD)
        run = upload_run(stack, "during-the-outage", stc3_run("d1"))
        study = f"{stack.url}/study/{stack.world['study']}/"
        arrival = stack.session("127.0.4.3").get(study, params={"PROLIFIC_PID": "p-outage"}, timeout=30)
        took = time.monotonic() - started
    finally:
        stack.services.start_redis()
    assert page.status_code == 200 and page.json()["version"] >= 1, page.text[:500]
    assert api.status_code == 200, api.text[:500]
    assert token.status_code == 200 and token.json()["token"]
    assert run.status_code == 202, run.text[:500]  # kept; beat's sweep sends it once Redis is back
    assert arrival.status_code == 200 and arrival.history[0].status_code == 302, arrival.text[:500]
    assert arrival.url == study, arrival.url  # signed in, on the study's page
    assert "not applied: the cache is unreachable" in (stack.tmp / "web.log").read_text()  # and the outage logged
    with capsys.disabled():
        done = "a page save, an API save, a token, a run upload and a new participant"
        print(f"\nwith Redis stopped: {done} in {took:.1f} s", flush=True)


# -- Outgoing requests ------------------------------------------------------------------------------------


def test_a_webhook_never_reaches_an_internal_service(stack, hostile):
    webhook_to_internal_service(stack.url, lead(stack), "load", hostile.internal)


def test_the_judge_key_never_follows_a_redirect(stack, hostile):
    judge_key_redirect(stack.url, lead(stack), "load", hostile)


# -- Hostile uploads --------------------------------------------------------------------------------------


HOSTILE_IMPORTS = {
    "a 5,001-digit integer": jsonl_dialogue('{"n": ' + "7" * 5001 + "}"),
    "NaN": jsonl_dialogue('{"n": NaN}'),
    "Infinity": jsonl_dialogue('{"n": Infinity}'),
}
HOSTILE_RUNS = {"a lone surrogate": stc3_run("\\ud800"), "a NUL": stc3_run("x\\u0000y")}


def test_hostile_uploads_end_failed_with_a_message(stack):
    client = lead(stack)
    imports = {
        name: upload_import(stack, f"hostile-{i}.jsonl", body) for i, (name, body) in enumerate(HOSTILE_IMPORTS.items())
    }
    runs = {name: upload_run(stack, f"hostile-{i}", body) for i, (name, body) in enumerate(HOSTILE_RUNS.items())}
    for name, answer in {**imports, **runs}.items():
        assert answer.status_code < 500, (name, answer.status_code, answer.text[:300])
    deadline = time.monotonic() + 60
    ended: dict[str, dict] = {}
    while time.monotonic() < deadline and len(ended) < len(imports) + len(runs):
        for name, answer in imports.items():
            job = client.get(stack.url + answer.json()["url"].removeprefix(stack.url), timeout=30).json()
            if job["finished"]:
                ended[name] = {"status": job["status"], "message": job["error"] or job["message"]}
        for name, answer in runs.items():
            run = client.get(f"{stack.url}/api/projects/runs/runs/{answer.json()['id']}/", timeout=30).json()
            if run["status"] != "pending":
                ended[name] = {"status": run["status"], "message": run["error"]}
        time.sleep(1)
    print(f"hostile uploads: {json.dumps(ended)}", flush=True)
    assert set(ended) == set(imports) | set(runs), f"still running or pending: {set(imports) | set(runs) - set(ended)}"
    for name, job in ended.items():
        assert job["status"] == "failed" and job["message"], (name, job)


# -- Saving through kills and restarts --------------------------------------------------------------------


@dataclass
class Attempt:
    kind: str  # "page" or "api"
    key: str  # assignment:criterion:unit
    value: str
    started: float
    client: int = 0  # which of the clients sent it
    ended: float = 0.0
    status: int | None = None  # None: no answer (connection refused or reset)


@dataclass
class Load:
    """Clients saving until told to stop: half through the page's autosave, half through the API."""

    stack: Stack
    attempts: list[Attempt] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    going: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0

    def pause(self) -> None:
        """Stop sending saves and wait for those under way: the web processes are idle."""
        self.going.clear()
        while self.in_flight:
            time.sleep(0.05)

    def resume(self) -> None:
        self.going.set()

    def client(self, n: int, account: dict) -> None:
        kind = "page" if n % 2 else "api"
        session = self.stack.session(f"127.0.5.{n + 1}")
        if kind == "page":
            assert page_login(self.stack, session, account["username"], PASSWORD).status_code == 302
        values = self.stack.world["values"]
        count = 0
        while not self.stop.is_set():
            with self.lock:
                sending = self.going.is_set()
                self.in_flight += sending
            if not sending:
                self.going.wait(timeout=1)
                continue
            item = account["items"][count % len(account["items"])]
            value = values[(count // len(account["items"])) % len(values)]
            attempt = Attempt(kind, f"{item}:A:0", value, time.monotonic(), n)
            try:
                if kind == "page":
                    answer = page_save(self.stack, session, item, value)
                else:
                    answer = api_save(self.stack, session, account["token"], item, value)
                attempt.status = answer.status_code
            except requests.RequestException:
                pass
            attempt.ended = time.monotonic()
            with self.lock:
                self.attempts.append(attempt)
                self.in_flight -= 1
            count += 1
            time.sleep(0.25)  # an annotator's pace, well within the API's 300 writes a minute

    def run(self, accounts: list[dict]) -> list[threading.Thread]:
        threads = [threading.Thread(target=self.client, args=(n, a), daemon=True) for n, a in enumerate(accounts)]
        for thread in threads:
            thread.start()
        return threads


def lost_answers(attempts: list[Attempt], stored: dict[str, str]) -> list[Attempt]:
    """Acknowledged saves the database does not hold: the stored value of a key must be the last acknowledged
    one, or one of the saves sent after it (a save whose answer was lost may still have been written)."""
    lost = []
    by_key: dict[str, list[Attempt]] = {}
    for attempt in sorted(attempts, key=lambda a: a.started):
        by_key.setdefault(attempt.key, []).append(attempt)
    for key, tries in by_key.items():
        acknowledged = [i for i, a in enumerate(tries) if a.status is not None and 200 <= a.status < 300]
        if not acknowledged:
            continue
        last = acknowledged[-1]
        if stored.get(key) not in {a.value for a in tries[last:]}:
            lost.append(tries[last])
    return lost


def test_kills_and_restarts_lose_no_acknowledged_answer_and_leave_no_job_unended(stack, capsys):
    load = Load(stack)
    windows: list[tuple[str, float, float]] = []  # what was down, from when to when

    def outage(name: str, down, up, seconds: float = 2.0) -> None:
        started = time.monotonic()
        down()
        time.sleep(seconds)
        up()
        windows.append((name, started, time.monotonic()))
        time.sleep(3)

    load.resume()
    threads = load.run(stack.world["clients"])
    time.sleep(3)
    for n in range(2):  # jobs on the heavy queue while its worker is killed
        upload_import(stack, f"ok-{n}.jsonl", jsonl_dialogue('{"n": 1}').replace(b'"h1"', f'"ok{n}"'.encode()))
        upload_run(stack, f"under-load-{n}", stc3_run("d1"))
    for name in [f"worker-{queue}" for queue in QUEUES] + ["beat"]:
        outage(name, lambda name=name: stack.kill(name), lambda name=name: stack.restart(name))
    outage("redis", stack.services.stop_redis, stack.services.start_redis, seconds=5)
    outage("postgresql", stack.services.restart_postgres, lambda: None, seconds=0)
    # and while the web processes are idle: their kept connections are dead when the saves come back
    load.pause()
    outage("postgresql (idle)", stack.services.restart_postgres, load.resume, seconds=0)
    # every client saves again after that restart (answered, whatever the answer: the assertions below judge it)
    back = windows[-1][2]

    def answered_since_back() -> set[int]:
        return {a.client for a in list(load.attempts) if a.started > back and a.status is not None}

    assert wait_for(lambda: answered_since_back() == set(range(CLIENTS)), 60), answered_since_back()
    load.stop.set()
    for thread in threads:
        thread.join(timeout=90)

    # every job ends within its time limit and the redelivery of a killed worker's task
    deadline = time.monotonic() + TIME_LIMIT + VISIBILITY + RESTORE_SCAN
    while True:
        state = stack.shell_json(STATE)
        if not any(state["unended"].values()) or time.monotonic() > deadline:
            break
        time.sleep(5)

    def phase(attempt: Attempt) -> str:
        """What was down while the save was in flight (the first outage it overlapped), else "running"."""
        return next(
            (name for name, start, end in windows if attempt.started <= end and attempt.ended >= start), "running"
        )

    acknowledged = Counter(a.kind for a in load.attempts if a.status is not None and 200 <= a.status < 300)
    server_errors = Counter(
        f"{a.kind} {a.status} ({phase(a)})" for a in load.attempts if a.status is not None and a.status >= 500
    )
    refused = Counter(f"{a.kind} {a.status}" for a in load.attempts if a.status is not None and 400 <= a.status < 500)
    unanswered = Counter(f"{a.kind} ({phase(a)})" for a in load.attempts if a.status is None)
    lost = lost_answers(load.attempts, state["answers"])
    report = (
        f"deployment stack: {CLIENTS} clients, {len(load.attempts)} saves, acknowledged {dict(acknowledged)}, "
        f"lost {len(lost)}; server errors {dict(server_errors) or 0}; refused {dict(refused) or 0}; "
        f"no answer {dict(unanswered) or 0}; "
        f"jobs not ended {state['unended']}; outages {[(n, round(e - s, 1)) for n, s, e in windows]}"
    )
    with capsys.disabled():
        print(f"\n{report}", flush=True)
    assert acknowledged["page"] > 0 and acknowledged["api"] > 0, report  # both the page's and a script's saves
    assert not refused, report
    assert not lost, lost[:5]
    assert not any(state["unended"].values()), state["unended"]
    # PostgreSQL down answers 503 (Retry-After; nothing changed) while it restarts, nothing else fails: no worker,
    # beat or Redis outage, and no stale database connection after the restart (CONN_HEALTH_CHECKS); never a 500
    assert not [kind for kind in server_errors if " 500 " in kind], report
    outside = {kind: n for kind, n in server_errors.items() if not kind.endswith("(postgresql)")}
    assert not outside, report


# -- Every job bounded and ended, every worker consuming (issue 40) -----------------------------------------

JOBS = """
import json
from django.utils import timezone
from annotator.models import Job, JobState
# a job queued with a countdown still to run (a webhook's next attempt) is scheduled, not stuck
unended = Job.objects.exclude(state__in=[JobState.DONE, JobState.FAILED]).exclude(
    state=JobState.QUEUED, due_at__gt=timezone.now()
)
print(json.dumps({
    "unended": {f"{j.task.rsplit('.', 1)[1]} {j.pk}": j.state for j in unended},
    "ended": {f"{j.task.rsplit('.', 1)[1]} {j.pk}": [j.state, j.ended_by, j.attempt] for j in Job.objects.all()},
}))
"""


def _jobs(stack: Stack) -> dict:
    return stack.shell_json(JOBS)


def _wait_until_all_jobs_end(stack: Stack, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        state = _jobs(stack)
        if not state["unended"] or time.monotonic() > deadline:
            return state
        time.sleep(5)


def test_a_webhook_receiver_that_trickles_holds_a_worker_only_until_the_deliverys_deadline(stack, trickler, capsys):
    """A receiver the operator allowed answering a byte every 0.5 s (each read well within any per-read timeout)
    is cut off at the delivery's total deadline (WEBHOOK_TIMEOUT_SECONDS, 10 s here), long before the task's soft
    limit: the attempt counts as failed (to be retried), and the interactive worker is free again."""
    client = lead(stack)
    hooks = f"{stack.url}/api/projects/runs/webhooks/"
    made = client.post(hooks, json={"url": trickler.url("/trickle-headers"), "events": ["run.scored"]}, timeout=60)
    assert made.status_code == 201, made.text[:300]
    try:
        started = time.monotonic()
        tested = client.post(f"{hooks}{made.json()['id']}/test/", timeout=60)
        assert tested.status_code in (200, 201, 202), tested.text[:300]
        deliveries = f"{hooks}{made.json()['id']}/deliveries/"

        def attempt_ended() -> dict | None:
            rows = client.get(deliveries, timeout=60).json()
            rows = rows.get("results", rows) if isinstance(rows, dict) else rows
            row = rows[0] if rows else None
            return row if row and row["status"] in ("retrying", "failed") else None

        found: list[dict | None] = []
        wait_for(lambda: found.append(attempt_ended()) or found[-1], 180, every=0.5)
        ended = found[-1]
        took = time.monotonic() - started
        with capsys.disabled():
            print(f"\ntrickling receiver: the attempt ended {ended and ended['status']} after {took:.0f} s", flush=True)
        assert ended is not None, "the delivery to a trickling receiver never ended"
        soft, _hard = (54, 60)  # deliver_webhook's limits in the table (60 s hard, a tenth earlier soft)
        assert took < soft, took  # the total deadline, not the task's limit, ended it
        assert any(r["path"] == "/trickle-headers" for r in trickler.requests())  # reached (allowed), then cut off
        # and the interactive worker takes a new job at once
        run = upload_run(stack, f"after-trickle-{int(time.time())}", stc3_run("d1"))
        assert run.status_code == 202
    finally:
        # the receiver keeps trickling: left subscribed, every later run would send it a delivery retried for
        # minutes (jobs the next test waits for); removed, a queued attempt finds no delivery and ends at once
        client.delete(f"{hooks}{made.json()['id']}/", timeout=60)


def test_workers_killed_during_their_jobs_and_redis_stopped_20_s_leave_no_job_unended(stack, capsys):
    """Jobs of every queue in flight (imports, runs, statistics, reports, exports) while each worker is SIGKILLed
    and restarted, then Redis stopped for 20 s: every job ends (done, or failed saying why) and every worker
    consumes afterwards (a job sent to each queue after the outage is done)."""
    client = lead(stack)
    dialogues = b"".join(
        jsonl_dialogue('{"n": ' + str(n) + "}").replace(b'"h1"', f'"bulk{n}"'.encode()) for n in range(3000)
    )
    sent = [
        upload_import(stack, "bulk-during-kills.jsonl", dialogues),
        upload_run(stack, f"during-kills-{int(time.time())}", stc3_run("d1")),
        client.get(f"{stack.url}/api/projects/runs/archive/", timeout=60),
        client.get(f"{stack.url}/api/projects/runs/export/?format=distributions-csv", timeout=60),
    ]
    for answer in sent:
        assert answer.status_code in (200, 202), answer.text[:300]
    killed = []
    for queue in QUEUES:
        stack.kill(f"worker-{queue}")
        killed.append(queue)
        stack.restart(f"worker-{queue}")
    stack.services.stop_redis()
    time.sleep(20)  # the outage itself
    stack.services.start_redis()
    # a job on each queue after the outage: a run (heavy), the statistics it asks for (interactive), an export
    after = [
        upload_run(stack, f"after-outage-{int(time.time())}", stc3_run("d1")),
        client.get(f"{stack.url}/api/projects/runs/export/?format=stc3", timeout=60),
    ]
    for answer in after:
        assert answer.status_code in (200, 202), answer.text[:300]
    state = _wait_until_all_jobs_end(stack, TIME_LIMIT + 30 + 120)
    alive = {name: process.poll() is None for name, process in stack.processes.items()}
    with capsys.disabled():
        print(
            f"\nkilled {killed}, Redis stopped 20 s: jobs not ended {len(state['unended'])} {state['unended']}; "
            f"processes alive {alive}",
            flush=True,
        )
    assert not state["unended"], state["unended"]
    assert all(alive.values()), alive
    ended_after = [v for k, v in state["ended"].items() if k.startswith(("score_uploaded_run", "export_gold"))]
    assert all(s == "done" for s, _end, _attempt in ended_after[-2:]), state["ended"]
