"""The workload of the side-by-side comparison with POTATO and Label Studio (issue #46), on this platform.

Builds the collection from ``../shared/data/dbdc3.zip``: the DBDC3 English evaluation set (200 dialogues, 2,000
system turns x 30 labels = 60,000 labels) at ``--scale 1``, and at ``--scale N`` a zip of N renamed copies of its
files (the same shape: 10x is 600,000 labels in 2,000 files, 100x 6,000,000 in 20,000). Then, on a new database
(``--database sqlite``: a file in a temporary folder; ``postgres``: a throwaway cluster from
``scripts/services.py``, or ``DATABASE_URL``):

- ``import``: ``manage.py create_project`` and ``manage.py import_dialogues`` as subprocesses, as
  docs/cli.md documents them (the import's wall time includes the process's start, parsing, checking, writing and
  its progress bars; peak memory is the import process's maximum resident set size; its CPU, user + system, beside);
- ``one annotator`` and ``20 annotators``: a live server as documented - on SQLite the embedded default
  (``runserver`` with ``config.settings.local`` and the worker beside it, as ``./scripts/serve.sh`` runs them), on
  PostgreSQL gunicorn with ``config/gunicorn.py`` and the production settings (docs/deployment.md, without
  HTTPS: the bench speaks plain HTTP on loopback) and a worker on Redis. Each annotator signs in and, item after
  item, saves a draft and then the submission through the API the annotation page calls (``save``), then asks
  for the next item as the page does after submitting (``GET /items/ID/submit/``, which hands out and redirects,
  and the next item's page: ``next item``). One annotator makes ``--saves`` saves alone; then ``--clients``
  annotators make as many between them, all at once with no pause (a closed loop); K is 20, so every annotator
  has every dialogue. The annotators sign in before each phase's clock starts (as annotators at work are signed
  in): a sign-in's password hash (about 0.3 s of CPU) is neither a save nor a next item;
- ``export``: ``manage.py export_gold SLUG --format dbdc`` as a subprocess.

Beside each phase's latencies, the CPU the server used per request (its process tree; on a loaded machine a
steadier measure than the wall times), PostgreSQL's (every cluster on the machine) and the worker's.

Checks at the end that the database holds exactly the judgements of every accepted save and that no dialogue
has more than K annotators' assignments (items handed out beyond K). Prints one JSON line per measure with the
machine's load average (``/proc/loadavg``) at its end.

    .venv/bin/python bench/peers_workload.py [--scale 1|10|100] [--database sqlite|postgres] [--saves 200]
                                             [--clients 20] [--skip-annotators] [--only import[,annotators,export]]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

from _setup import ROOT, shared_file
from api_load import cpu_by_process_group
from services import celery_worker_command, free_port

EVAL_PREFIX = "DBDC3/dbdc3/en/eval/"
PASSWORD = "peers-bench-pass-1"


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip()


def emit(measure: str, **figures) -> None:
    print(json.dumps({"measure": measure, **figures, "loadavg": loadavg()}), flush=True)


def build_collection(target: Path, scale: int) -> tuple[Path, int]:
    """The collection to import: the English eval files themselves at scale 1, else a zip of ``scale`` copies
    (dialogue ids and file names suffixed ``-cN``); returns its path and the number of labels."""
    with zipfile.ZipFile(shared_file("dbdc3.zip")) as source:
        members = [m for m in source.namelist() if m.startswith(EVAL_PREFIX) and m.endswith(".log.json")]
        texts = {m: source.read(m) for m in members}
    labels = sum(
        len(t.get("annotations", [])) for m in members for t in json.loads(texts[m])["turns"] if t["speaker"] == "S"
    )
    if scale == 1:
        folder = target / "dbdc3-en-eval"
        for member, data in texts.items():
            path = folder / member[len(EVAL_PREFIX) :]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return folder, labels
    path = target / f"dbdc3-en-eval-x{scale}.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as out:
        for copy in range(scale):
            for member, data in texts.items():
                dialogue = json.loads(data)
                dialogue["dialogue-id"] = f"{dialogue['dialogue-id']}-c{copy}"
                name = re.sub(r"\.log\.json$", f"-c{copy}.log.json", member[len(EVAL_PREFIX) :])
                out.writestr(name, json.dumps(dialogue, ensure_ascii=False))
    return path, labels * scale


def run_cli(env: dict, *args: str) -> tuple[float, int, str, float]:
    """Run ``manage.py ARGS``: wall seconds, the child's peak RSS in MiB (largest child so far), its output, and
    its CPU seconds (user + system: on a shared machine steadier than the wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    if done.returncode:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, after.ru_maxrss // 1024, done.stdout.strip(), cpu


def percentiles(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
    }


class Annotator:
    """One annotator's browser: signed in, saving through the API and going on to the next item."""

    def __init__(self, base: str, username: str):
        import requests

        self.base, self.http = base, requests.Session()
        self.http.get(f"{base}/accounts/login/").raise_for_status()
        answer = self.http.post(
            f"{base}/accounts/login/",
            {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": self.http.cookies["csrftoken"]},
            headers={"Referer": f"{base}/accounts/login/"},
        )
        answer.raise_for_status()
        if "sessionid" not in self.http.cookies:
            sys.exit(f"{username} could not sign in ({answer.status_code} {answer.url})")

    def save(self, assignment_id: int, body: dict) -> tuple[float, int]:
        started = time.perf_counter()
        answer = self.http.post(
            f"{self.base}/api/assignments/{assignment_id}/judgements/",
            json=body,
            headers={"X-CSRFToken": self.http.cookies["csrftoken"], "Referer": f"{self.base}/"},
        )
        return time.perf_counter() - started, answer.status_code

    def next_item(self, submitted_id: int) -> tuple[float, int, str]:
        started = time.perf_counter()
        answer = self.http.get(f"{self.base}/items/{submitted_id}/submit/")  # follows to the next item's page
        return time.perf_counter() - started, answer.status_code, answer.url


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--saves", type=int, default=200, help="saves of each phase (one annotator, all at once)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--skip-annotators", action="store_true", help="the import and the export only")
    parser.add_argument(
        "--only", default="import,annotators,export", help="the phases to run, comma-separated (import always runs)"
    )
    args = parser.parse_args()
    phases = set(args.only.split(","))
    if args.skip_annotators:
        phases.discard("annotators")
    tmp = Path(tempfile.mkdtemp(prefix="peers-"))
    env = dict(os.environ)
    for name in ("CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CACHE_URL"):
        env.pop(name, None)
    if args.database == "postgres":
        if "DATABASE_URL" not in env or not env["DATABASE_URL"].startswith("postgres"):
            import atexit

            from services import Services, ensure_system_packages

            ensure_system_packages()
            services = Services()
            env.update(services.start())
            atexit.register(services.stop)
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings.production",
            SECRET_KEY="peers-bench-" + "x" * 50,
            ALLOWED_HOSTS="127.0.0.1,localhost",
            HTTPS_ONLY="false",
            MEDIA_ROOT=str(tmp / "media"),
        )
    else:
        env.update(DJANGO_SETTINGS_MODULE="config.settings.local", DATABASE_URL=f"sqlite:///{tmp / 'db.sqlite3'}")
        env["EMBEDDED_BROKER_DIR"] = str(tmp / "db-broker")
    env["API_WRITE_RATE"] = "1000000/minute"  # capacity, not the per-user rate limit
    collection, labels = build_collection(tmp, args.scale)
    base = {"scale": args.scale, "database": args.database}

    run_cli(env, "migrate", "--noinput")
    k = 20 if "annotators" in phases else 3
    run_cli(env, "create_project", "peers", "--preset", "dbdc", "--annotators-per-dialogue", str(k))
    wall, rss, output, cpu = run_cli(env, "import_dialogues", "peers", str(collection))
    emit("import", **base, labels=labels, seconds=round(wall, 2), cpu_seconds=round(cpu, 2), peak_rss_mib=rss,
         output=output)  # fmt: skip

    if "annotators" in phases:
        annotators_phases(args, env, base, k, tmp)

    if "export" in phases:
        wall, rss, output, cpu = run_cli(env, "export_gold", "peers", "--format", "dbdc", "--output", str(tmp / "gold"))
        emit("export", **base, seconds=round(wall, 2), cpu_seconds=round(cpu, 2), output=output[-200:])
    subprocess.run(["rm", "-rf", str(tmp)], check=False)


def annotators_phases(args, env: dict, base: dict, k: int, tmp: Path) -> None:
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection

    from annotator.handout.services.bulk import assignments_create_balanced
    from annotator.models import Assignment, Judgement, Project
    from annotator.selectors.structure import dialogue_shape
    from annotator.services.projects import membership_add
    from annotator.units import required_units

    project = Project.objects.get(slug="peers")
    criterion = project.criteria.get(key="breakdown")
    names = ["solo"] + [f"annotator{i}" for i in range(args.clients)]
    for name in names:
        user = get_user_model().objects.create_user(username=name, password=PASSWORD)
        membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project)
    units = {d: required_units(criterion, dialogue_shape(d)) for d in project.dialogues.values_list("pk", flat=True)}
    queues = {
        name: list(
            Assignment.objects.filter(annotator__username=name, imported=False)
            .order_by("queue_rank")
            .values_list("pk", "dialogue_id")
        )
        for name in names
    }
    connection.close()

    port = free_port()
    server_env = dict(env)
    processes = []
    if args.database == "postgres":
        from tests.live_servers import collect_static

        collect_static(server_env)  # as the image does (WhiteNoise serves the collected files)
        server_env.update(GUNICORN_BIND=f"127.0.0.1:{port}")
        gunicorn = str(Path(sys.executable).parent / "gunicorn")
        server = [gunicorn, "-c", "config/gunicorn.py", "config.wsgi:application", "--access-logfile", "/dev/null"]
        worker = celery_worker_command()
    else:
        server = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
        worker = [sys.executable, "-m", "celery", "-A", "config", "worker", "-B", "-Q", "interactive,heavy,exports"]
        worker += ["-n", "embedded@%h", "--concurrency=2", "--loglevel=WARNING", "-s", str(tmp / "beat-schedule")]
    for command in (server, worker):
        processes.append(
            subprocess.Popen(command, cwd=ROOT, env=server_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )
    url = f"http://127.0.0.1:{port}"
    import requests

    waited = time.monotonic()
    while True:
        try:
            requests.get(f"{url}/accounts/login/", timeout=5).raise_for_status()
            break
        except requests.RequestException:
            if time.monotonic() - waited > 120:
                for process in processes:
                    process.kill()
                sys.exit("the server did not answer in 120 s")
            time.sleep(0.2)

    expected: dict[int, dict] = {}
    errors: list[str] = []
    lock = threading.Lock()

    def work(browser: Annotator, name: str, saves: int, save_times: list, next_times: list) -> None:
        done = 0
        for assignment_id, dialogue_id in queues[name]:
            if done >= saves:
                break
            judgements = [{"criterion": "breakdown", "unit": u, "value": "OTX"[u % 3]} for u in units[dialogue_id]]
            for body in ({"judgements": judgements[:1], "submit": False}, {"judgements": judgements, "submit": True}):
                seconds, status = browser.save(assignment_id, body)
                done += 1
                with lock:
                    save_times.append(seconds)
                    if status == 200:
                        merged = expected.setdefault(assignment_id, {})
                        merged.update({j["unit"]: j["value"] for j in body["judgements"]})
                    else:
                        errors.append(f"save {assignment_id}: {status}")
            seconds, status, landed = browser.next_item(assignment_id)
            with lock:
                next_times.append(seconds)
                if status != 200:
                    errors.append(f"next after {assignment_id}: {status} {landed}")

    groups = {"server": processes[0].pid, "worker": processes[1].pid}
    for phase, clients in (("one annotator", ["solo"]), (f"{args.clients} annotators", names[1:])):
        save_times: list[float] = []
        next_times: list[float] = []
        browsers = {n: Annotator(url, n) for n in clients}  # signed in before the clock starts, as at work
        cpu_before = cpu_by_process_group(groups)
        each = -(-args.saves // len(clients))
        threads = [threading.Thread(target=work, args=(browsers[n], n, each, save_times, next_times)) for n in clients]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
        cpu = {k: v - cpu_before[k] for k, v in cpu_by_process_group(groups).items()}
        requests_made = len(save_times) + 2 * len(next_times)  # (the next item is two requests)
        emit(f"{phase}: save", **base, **percentiles(save_times), seconds=round(wall, 1), errors=len(errors))
        emit(f"{phase}: next item", **base, **percentiles(next_times), errors=len(errors))
        emit(
            f"{phase}: CPU",
            **base,
            server_ms_per_request=round(1000 * cpu["server"] / max(1, requests_made), 2),
            # (every cluster's processes: one that ended meanwhile takes its time away)
            database_seconds=round(cpu["postgresql"], 2)
            if args.database == "postgres" and cpu["postgresql"] >= 0
            else None,
            worker_seconds=round(cpu["worker"], 2),
        )
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()

    stored: dict[int, dict] = {}
    for assignment_id, unit, value in Judgement.objects.filter(assignment_id__in=list(expected)).values_list(
        "assignment_id", "unit", "value"
    ):
        stored.setdefault(assignment_id, {})[unit] = value
    rows = Judgement.objects.filter(assignment_id__in=list(expected)).count()
    beyond = _beyond_k(project, k)
    emit(
        "check",
        **base,
        judgements_exact=stored == expected and rows == sum(map(len, expected.values())),
        items_beyond_k=beyond,
        errors=errors[:5],
    )


def _beyond_k(project, k: int) -> int:
    """Places held beyond K: each dialogue's annotators (not imported) over K, summed."""
    from django.db.models import Count, Q

    from annotator.models import Dialogue

    counts = Dialogue.objects.filter(project=project).annotate(
        n=Count("assignments", filter=Q(assignments__imported=False))
    )
    return sum(max(0, d.n - k) for d in counts)


if __name__ == "__main__":
    main()
