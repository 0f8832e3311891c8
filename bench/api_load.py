"""20 concurrent clients submitting judgements through the REST API for 60 s against gunicorn.

Starts a throwaway PostgreSQL (the test cluster's settings: fsync and synchronous_commit off) and
Redis, a Celery worker (which recomputes the statistics as submissions come in, at its lower CPU
priority) and gunicorn (sync workers, one per core, preloaded) on a free loopback port; imports the
3,700 STC-3 Chinese training dialogues into a project with 20 annotators and K = 3 (11,100 items).
Each client works through its own items like the annotation page does: a partial draft, a
complete draft, then the submission, each a POST of the JSON the page would send, with no pause
between requests (a closed loop: latency is what 20 busy clients wait), or with ``--every S`` one
save every S seconds per client (an offered load: 50 annotators saving every 2 s is
``--clients 50 --every 2``). With ``--live-state`` the project's live statistics exist from the
start (as after the lead's first dashboard view), so each submission also updates them. Prints
requests/s, p50/p95/p99 latency, errors, the CPU each process used (gunicorn's per save; in a closed
loop, its saves per second per core of CPU), then checks that the database holds exactly the
judgements of every client's accepted saves, merged (no loss, no duplicates).

    .venv/bin/python bench/api_load.py [--clients 20] [--seconds 60] [--every S] [--workers N]
                                       [--threads T] [--worker-queues interactive,heavy,exports] [--live-state]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _setup import ROOT, django_on_postgres, extract, stc3_save_body
from services import celery_worker_command, free_port


def cpu_by_process_group(groups: dict[str, int]) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each group: a process tree named by its root pid,
    plus PostgreSQL and Redis by process name."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, comm, cpu = {}, {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, rest = text[text.index("(") + 1 : text.rindex(")")], text[text.rindex(")") + 2 :].split()
        pid = int(stat.parent.name)
        # own time plus that of exited children it has reaped (PostgreSQL's closed connections)
        parent[pid], comm[pid] = int(rest[1]), name
        cpu[pid] = sum(int(field) for field in rest[11:15]) / tick

    def group_of(pid: int) -> str | None:
        if comm[pid].startswith("postgres"):
            return "postgresql"
        if comm[pid].startswith("redis-server"):
            return "redis"
        seen = pid
        while seen in parent:
            for label, root in groups.items():
                if seen == root:
                    return label
            seen = parent[seen]
        return None

    totals = dict.fromkeys([*groups, "postgresql", "redis"], 0.0)
    for pid in cpu:
        label = group_of(pid)
        if label:
            totals[label] += cpu[pid]
    return totals


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--dialogues", type=int, default=3700)
    parser.add_argument("--every", type=float, default=0, help="seconds between one client's saves (0: none)")
    parser.add_argument("--annotators-per-dialogue", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (> 1: gthread)")
    parser.add_argument(
        "--worker-queues",
        default="interactive,heavy,exports",
        help="queues of the one worker beside gunicorn (interactive: the heavy work, such as the models' "
        "estimate, runs on other machines)",
    )
    parser.add_argument(
        "--live-state",
        action="store_true",
        help="build the project's live statistics first (as a dashboard view does): submissions then update them",
    )
    args = parser.parse_args()
    env = django_on_postgres(with_redis=True)
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotator.handout.services.bulk import assignments_create_balanced
    from annotator.models import Assignment, Judgement
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create

    with tempfile.TemporaryDirectory() as tmp:
        source = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        dialogues = json.loads(source.read_text(encoding="utf-8"))[: args.dialogues]
        for d in dialogues:
            d.pop("annotations", None)
        subset = Path(tmp) / "subset.json"
        subset.write_text(json.dumps(dialogues, ensure_ascii=False), encoding="utf-8")
        project = project_create(
            slug=f"load-{int(time.time())}", preset="stc3", annotators_per_dialogue=args.annotators_per_dialogue
        )
        dialogues_import(project=project, paths=[subset])
    users, tokens = [], []
    for i in range(args.clients):
        user = get_user_model().objects.create_user(username=f"load{i}-{project.pk}", password="x-load-pass-1")
        membership_add(project=project, user=user, role="annotator")
        users.append(user)
        tokens.append(Token.objects.create(user=user).key)
    assignments_create_balanced(project=project)
    if args.live_state:
        from evaluation.services.incremental import live_state_rebuild

        live_state_rebuild(project=project, reason="benchmark")
    turns = {d["id"]: [t["sender"] for t in d["turns"]] for d in dialogues}
    work = {
        u.pk: list(
            Assignment.objects.filter(annotator=u)
            .select_related("dialogue")
            .order_by("queue_rank")
            .values_list("pk", "dialogue__external_id")
        )
        for u in users
    }

    port = free_port()
    server_env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings.test", **env)
    server_env["ALLOWED_HOSTS"] = "127.0.0.1,localhost"
    server_env["API_WRITE_RATE"] = "1000000/minute"  # the bench measures capacity, not the per-user rate limit
    gunicorn = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(args.workers),
            "--threads",
            str(args.threads),
            "--preload",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=server_env,
    )
    worker = subprocess.Popen(
        celery_worker_command(queues=args.worker_queues),
        cwd=ROOT,
        env=server_env,
    )
    # Ready means answering HTTP (the port accepts connections before the workers exist).
    waited = time.monotonic()
    while time.monotonic() - waited < 60:
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            probe.request("GET", "/accounts/login/")
            probe.getresponse().read()
            break
        except (OSError, http.client.HTTPException):
            time.sleep(0.1)

    latencies: list[float] = []
    errors: list[str] = []
    expected: dict[int, dict] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + args.seconds

    def client(index: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Authorization": f"Token {tokens[index]}", "Content-Type": "application/json"}
        items = work[users[index].pk]
        step = 0
        due = time.monotonic() + args.every * index / max(1, args.clients)  # spread the clients' starts
        while time.monotonic() < deadline and step < 3 * len(items):
            if args.every:
                time.sleep(max(0.0, due - time.monotonic()))
                due += args.every
            assignment_id, external_id = items[step // 3]
            phase = step % 3
            body = stc3_save_body(turns[external_id], complete=phase > 0, seed=index)
            body["submit"] = phase == 2
            payload = json.dumps(body)
            started = time.perf_counter()
            try:
                connection.request("POST", f"/api/assignments/{assignment_id}/judgements/", payload, headers)
                response = connection.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as exc:
                status = f"{type(exc).__name__}"
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                if status != 200:
                    errors.append(f"{assignment_id}: {status}")
                else:
                    merged = expected.setdefault(assignment_id, {})  # saves merge judgement by judgement
                    merged.update({(j["criterion"], j["unit"]): j["value"] for j in body["judgements"]})
            step += 1

    groups = {"gunicorn": gunicorn.pid, "celery worker": worker.pid, "load generator": os.getpid()}
    cpu_before = cpu_by_process_group(groups)
    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    cpu_after = cpu_by_process_group(groups)
    gunicorn.terminate()
    worker.terminate()  # a warm shutdown: it finishes the recomputation it holds (waited for at the end)
    gunicorn.wait(timeout=30)

    ordered = sorted(latencies)

    def pct(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    print(f"clients / duration              {args.clients} / {wall:.1f} s")
    print(f"requests                        {len(latencies)} ({len(latencies) / wall:.0f} requests/s)")
    print(
        f"latency p50 / p95 / p99         {pct(0.5):.1f} / {pct(0.95):.1f} / {pct(0.99):.1f} ms   (target p95 < 100 ms)"
    )
    print(f"errors                          {len(errors)}{': ' + ', '.join(errors[:5]) if errors else ''}")
    for label in cpu_after:
        used = cpu_after[label] - cpu_before[label]
        print(
            f"CPU {label:<28}{used:.1f} s ({used / wall:.2f} cores, "
            f"{1000 * used / max(1, len(latencies)):.2f} ms/request)"
        )
    served = cpu_after["gunicorn"] - cpu_before["gunicorn"]
    print(f"saves per second per core       {len(latencies) / max(served, 1e-9):.0f} (gunicorn's CPU)")
    from evaluation.models import StatisticsJob

    job = StatisticsJob.objects.filter(project=project).first()
    if job and job.recomputations:
        print(
            f"statistics recomputed           {job.recomputations} times during the run (the last took "
            f"{(job.finished_at - job.started_at).total_seconds():.2f} s, on the worker at lower CPU priority)"
        )
    stored: dict[int, set] = {}
    for assignment_id, key, unit, value in Judgement.objects.filter(assignment_id__in=list(expected)).values_list(
        "assignment_id", "criterion__key", "unit", "value"
    ):
        stored.setdefault(assignment_id, set()).add((key, unit, value))
    rows = Judgement.objects.filter(assignment_id__in=list(expected)).count()
    wanted = {a: {(k, u, v) for (k, u), v in merged.items()} for a, merged in expected.items()}
    exact = stored == wanted and rows == sum(len(v) for v in wanted.values())
    submitted = Assignment.objects.filter(pk__in=list(expected), status="submitted").count()
    print(
        f"database check                  {'exactly the accepted saves, merged' if exact else 'MISMATCH'} "
        f"({len(expected)} items, {rows} judgements, {submitted} submitted)"
    )
    print(f"load average                    {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    try:
        worker.wait(timeout=300)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()


if __name__ == "__main__":
    main()
