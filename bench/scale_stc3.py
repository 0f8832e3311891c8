"""Ten times STC-3 on one machine: 37,000 dialogues x 19 annotators (about 5 million judgements) on PostgreSQL.

The collection is generated here from the shapes of the real STC-3 Chinese training set (in
../shared/data/stc3.zip), not copied from it: each generated dialogue takes the speakers and
number of utterances of a real dialogue chosen at random, utterances of the real lengths made of
characters drawn from the corpus' character frequencies, and for every unit (the A, S, E ratings
and each turn's nugget type) 19 labels drawn from that real unit's label shares, so agreement is
realistic. It is written as STC-3 JSON files of 3,700 dialogues each and imported through the real
import service (``dialogues_import``) into a throwaway PostgreSQL; then:

- import wall time (target < 5 min at 10x);
- full statistics through a real Celery worker (``recompute_statistics`` sent through Redis, forced):
  wall time until the result is back (target < 40 s) and the worker's peak RSS (VmHWM; target < 2 GiB);
- the dashboard page as the project's lead through Django's test client, median of 7 (target < 300 ms);
- every export (the API's ``stc3``, ``distributions-json``, ``distributions-csv``, the project archive, a
  run's per-dialogue CSV), each in a fresh process that reads the streamed response in chunks: bytes,
  seconds and peak memory above the process's idle RSS, at 1x (3,700 dialogues) and at the scale asked;
- the live figures (``live_figures_stage``): the CPU a submission's update of the statistics' state adds
  (target <= 5 ms median), the staleness of the dashboard after an acknowledged submission (target <= 2 s),
  and the live figures against the full recomputation (1e-12), at 1x and at the scale asked;
- the saves (``saves_stage``): CPU per save through the WSGI application (token, middleware, DRF, the save and
  the live state's update) on the project at 1x and at the scale asked.

    .venv/bin/python bench/scale_stc3.py [--scale 10] [--skip-1x] [--only import,stats,dashboard,exports,live,saves]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _setup import ROOT, extract
from _wsgi_saves import send, stc3_save_requests

REAL_DIALOGUES = 3700
ANNOTATORS = 19
QUALITY = ("A", "S", "E")
QUALITY_SCALE = (-2, -1, 0, 1, 2)
NUGGETS = {"customer": ("CNUG0", "CNUG", "CNUG*", "CNaN"), "helpdesk": ("HNUG", "HNUG*", "HNaN")}


def _status_kib(pid: int | str, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used (its own, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


# -- the collection ---------------------------------------------------------------------------------


def generate(real: list[dict], n: int, out: Path, *, seed: int = 16, per_file: int = REAL_DIALOGUES) -> list[Path]:
    """``n`` dialogues in the shapes of ``real`` as STC-3 JSON files of ``per_file`` dialogues."""
    rng = np.random.default_rng(seed)
    text = "".join(u for d in real for t in d["turns"] for u in t["utterances"])
    chars, freq = np.unique(np.frombuffer(text.encode("utf-32-le"), dtype="<u4"), return_counts=True)
    prob = freq / freq.sum()
    # label shares of every real unit, in the order of the scales
    paths = []
    templates = rng.integers(0, len(real), size=n)
    for start in range(0, n, per_file):
        records = []
        for i in range(start, min(start + per_file, n)):
            template = real[templates[i]]
            lengths = [[len(u) for u in t["utterances"]] for t in template["turns"]]
            drawn = rng.choice(chars, size=sum(map(sum, lengths)), p=prob).astype("<u4").tobytes().decode("utf-32-le")
            turns, at = [], 0
            for turn, sizes in zip(template["turns"], lengths):
                utterances = []
                for size in sizes:
                    utterances.append(drawn[at : at + size])
                    at += size
                turns.append({"sender": turn["sender"], "utterances": utterances})
            annotations: list[dict] = [{"quality": {}, "nugget": []} for _ in range(ANNOTATORS)]
            for key in QUALITY:
                shares = np.bincount(
                    [QUALITY_SCALE.index(a["quality"][key]) for a in template["annotations"]], minlength=5
                ) / len(template["annotations"])
                for a, v in zip(annotations, rng.choice(5, size=ANNOTATORS, p=shares)):
                    a["quality"][key] = QUALITY_SCALE[v]
            for t, turn in enumerate(template["turns"]):
                labels = NUGGETS[turn["sender"]]
                given = [a["nugget"][t] for a in template["annotations"]]
                shares = np.array([given.count(label) for label in labels]) / len(given)
                for a, v in zip(annotations, rng.choice(len(labels), size=ANNOTATORS, p=shares)):
                    a["nugget"].append(labels[v])
            records.append({"id": f"gen-{seed}-{i:06d}", "turns": turns, "annotations": annotations})
        path = out / f"generated-{start // per_file:03d}.json"
        path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return paths


# -- one export in a fresh process ------------------------------------------------------------------

EXPORTS = {
    "stc3": "/api/projects/{slug}/export/?format=stc3",
    "distributions-json": "/api/projects/{slug}/export/?format=distributions-json",
    "distributions-csv": "/api/projects/{slug}/export/?format=distributions-csv",
    "archive": "/api/projects/{slug}/archive/",
    "parquet": "/api/projects/{slug}/export/?format=parquet",
    "run-per-dialogue-csv": "/api/projects/{slug}/runs/{run}/per-dialogue/?format=csv",
}


def measure_export(slug: str, name: str, lead: str, run_id: str) -> None:
    """Child process: GET one export as the lead and read it in chunks; prints a JSON line of figures."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(get_user_model().objects.get(username=lead))
    client.get("/api/projects/")  # warm: imports, connection, session
    idle = _status_kib("self", "VmRSS")
    started = time.perf_counter()
    response = client.get(EXPORTS[name].format(slug=slug, run=run_id))
    digest, size, chunks = hashlib.sha256(), 0, 0
    if response.streaming:
        for chunk in response.streaming_content:
            digest.update(chunk)
            size += len(chunk)
            chunks += 1
    else:
        digest.update(response.content)
        size, chunks = len(response.content), 1
    took = time.perf_counter() - started
    peak = _status_kib("self", "VmHWM")
    print(
        json.dumps(
            {
                "status": response.status_code,
                "streamed": response.streaming,
                "bytes": size,
                "chunks": chunks,
                "seconds": took,
                "idle_mib": idle / 1024,
                "peak_above_idle_mib": (peak - idle) / 1024,
                "sha256": digest.hexdigest()[:16],
            }
        )
    )


def export_figures(slug: str, lead: str, run_id: int, names: list[str]) -> dict[str, dict]:
    out = {}
    for name in names:
        result = subprocess.run(
            [sys.executable, __file__, "--measure-export", slug, name, lead, str(run_id)],
            cwd=ROOT,
            env=dict(os.environ),
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            sys.exit(f"export {name} of {slug} failed:\n{result.stderr[-3000:]}")
        out[name] = json.loads(result.stdout.strip().splitlines()[-1])
    return out


# -- the statistics a save keeps current --------------------------------------------------------------

LIVE_SAVES = 200


def live_figures_stage(project, lead, scale: int, saves: int = LIVE_SAVES) -> None:
    """Build the project's live state (timed), then ``saves`` submissions by ten annotators of the project's own
    (added to the imported collection, each on its own dialogues), every fourth then reopened by the lead and
    submitted again with one label changed (an edit: -1 old, +1 new): the CPU the state's update adds to each
    submission (``time.process_time`` around it, in this process: Django's side of the statements; the
    database's own CPU is not in it), the staleness (from the acknowledged submission to a dashboard response
    showing its label count), and at the end the live figures against the full recomputation from every
    judgement (to 1e-12)."""
    import math

    from django.contrib.auth import get_user_model
    from django.test import Client

    import annotator.services.judgements.save as save_module
    from annotator.models import Assignment
    from annotator.selectors.judgement_arrays import project_judgements
    from annotator.selectors.structure import dialogue_shape, project_criteria
    from annotator.services.judgements import Given, judgements_save
    from annotator.services.judgements.save import assignment_reopen
    from annotator.services.projects import membership_add
    from annotator.units import required_units, unit_speaker
    from evaluation.services.incremental import live_figures
    from evaluation.services.live_rebuild import live_state_rebuild
    from evaluation.services.statistics import numeric_values
    from scoring.agreement import fleiss_kappa, krippendorff_alpha_from_counts, randolph_kappa

    started = time.perf_counter()
    live_state_rebuild(project_id=project.pk)
    print(f"[{scale}x] live state built from every judgement in {time.perf_counter() - started:.1f} s (load {load()})")
    people = []
    for i in range(10):
        name = f"live-{project.slug}-{i}"
        person = get_user_model().objects.filter(username=name).first() or get_user_model().objects.create_user(
            username=name, password="live-pass-1"
        )
        membership_add(project=project, user=person, role="annotator")
        people.append(person)
    dialogues = list(project.dialogues.order_by("pk").values_list("pk", flat=True)[: saves // len(people)])
    Assignment.objects.filter(annotator__in=people, dialogue__project=project).delete()
    items = Assignment.objects.bulk_create([Assignment(annotator=p, dialogue_id=d) for d in dialogues for p in people])
    criteria = list(project_criteria(project.pk).values())
    rng = np.random.default_rng(7)

    def answers(item) -> list[Given]:
        shape = dialogue_shape(item.dialogue_id)
        out = []
        for criterion in criteria:
            for unit in required_units(criterion, shape):
                speaker = unit_speaker(criterion, unit, shape)
                allowed = criterion.allowed_values(speaker if criterion.speakers else None)
                out.append(Given(criterion.key, unit, allowed[int(rng.integers(len(allowed)))]))
        return out

    added: list[float] = []
    apply = save_module.live_state_change

    def timed(**kwargs):
        before = time.process_time()
        apply(**kwargs)
        if kwargs["sign"] > 0:
            added.append(time.process_time() - before)

    save_module.live_state_change = timed
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(lead)
    url = f"/projects/{project.slug}/dashboard/"
    assert client.get(url).status_code == 200
    stale, whole, reads = [], [], []
    expected, labels = sum(f["n_labels"] for f in live_figures(project)["criteria"].values()), 0
    try:
        for i, item in enumerate(items):
            given = answers(item)
            before = time.process_time()
            judgements_save(assignment_id=item.pk, user=item.annotator, values=given, submit=True)
            labels += len(given)
            whole.append(time.process_time() - before)
            acknowledged = time.perf_counter()
            if i % 10 == 0:  # the dashboard shows it: its live label count is the state's
                page = client.get(url).content.decode()
                stale.append(time.perf_counter() - acknowledged)
                before = time.perf_counter()
                live_figures(project)
                reads.append(time.perf_counter() - before)
                shown = int(
                    "".join(ch for ch in page.split('id="live-labels">', 1)[1].split("<", 1)[0] if ch.isdigit())
                )
                assert shown == expected + labels, (shown, expected + labels)  # this very submission included
            if i % 4 == 0:  # an edit: reopened, one answer changed, submitted again
                assignment_reopen(assignment_id=item.pk)
                changed = given[int(rng.integers(len(given)))]
                criterion = project_criteria(project.pk)[changed.criterion]
                speaker = unit_speaker(criterion, changed.unit, dialogue_shape(item.dialogue_id))
                allowed = criterion.allowed_values(speaker if criterion.speakers else None)
                other = allowed[(allowed.index(changed.value) + 1) % len(allowed)]
                edited = [Given(g.criterion, g.unit, other) if g is changed else g for g in given]
                judgements_save(assignment_id=item.pk, user=item.annotator, values=edited, submit=True)
    finally:
        save_module.live_state_change = apply
    print(
        f"[{scale}x] live figures: {len(added)} submissions of {len(items)} items by {len(people)} annotators of the "
        f"project's own (every fourth item then edited: reopened, one label changed, submitted again): added CPU of "
        f"the state's update median {statistics.median(added) * 1000:.2f} ms, p95 "
        f"{np.percentile(added, 95) * 1000:.2f} ms (target <= 5 ms) of the whole submission's median "
        f"{statistics.median(whole) * 1000:.1f} ms; staleness (acknowledged submission to the dashboard "
        f"showing it) median {statistics.median(stale) * 1000:.0f} ms, max {max(stale) * 1000:.0f} ms of "
        f"{len(stale)}, of which the live figures themselves median {statistics.median(reads) * 1000:.0f} ms, the rest "
        f"the page's other parts (target <= 2 s; load {load()})"
    )
    rebuild_after_exclusion(project, lead, scale, people, answers)
    live = live_figures(project)["criteria"]
    worst = 0.0
    for key, data in project_judgements(project, long_form=False).items():
        counts = data.counts()
        values = numeric_values(data.values)
        pairs = [
            (live[key]["fleiss_kappa"], fleiss_kappa(counts)),
            (live[key]["randolph_kappa"], randolph_kappa(counts, n_categories=len(data.values))),
        ] + [
            (a, krippendorff_alpha_from_counts(counts, lv, values)) for lv, a in live[key]["krippendorff_alpha"].items()
        ]
        assert live[key]["distribution"] == dict(zip(data.values, counts.sum(axis=0).tolist())), key
        for a, b in pairs:
            if not (math.isnan(a) and math.isnan(b)):
                worst = max(worst, abs(a - b))
    print(f"[{scale}x] live figures against the full recomputation: largest difference {worst:.1e} (target <= 1e-12)")
    assert worst <= 1e-12


def rebuild_after_exclusion(project, lead, scale: int, people, answers, saves: int = 40) -> None:
    """An imported annotator excluded: the dashboard right after it (the rebuild sent to the workers, as with a
    broker: here held until the pages are timed), then the background rebuild in a thread of its own while
    ``saves`` submissions are made (their wall time, and how long the rebuild's switch held the state's lock),
    the rebuild's duration, and the dashboard once it has switched."""
    import threading

    from django.db import connection
    from django.test import Client

    from annotator.models import Assignment, Membership
    from annotator.services.exclusions import annotator_exclude
    from annotator.services.judgements import judgements_save
    from evaluation.models import LiveState
    from evaluation.services import incremental, live_rebuild

    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(lead)
    url = f"/projects/{project.slug}/dashboard/"
    excluded = Membership.objects.filter(project=project, imported=True).select_related("user").first().user
    send = incremental.live_state_rebuild_request
    incremental.live_state_rebuild_request = lambda project_id: True  # the workers' queue, not run here
    try:
        annotator_exclude(project=project, username=excluded.username, reason="benchmark", excluded_by=lead)
        pages = []
        for _ in range(5):
            started = time.perf_counter()
            page = client.get(url).content.decode()
            pages.append(time.perf_counter() - started)
            assert 'id="live-stale"' in page
    finally:
        incremental.live_state_rebuild_request = send
    taken = set(Assignment.objects.filter(annotator__in=people).values_list("dialogue_id", flat=True))
    fresh = list(project.dialogues.exclude(pk__in=taken).order_by("pk").values_list("pk", flat=True)[:saves])
    items = Assignment.objects.bulk_create(
        [Assignment(annotator=people[i % len(people)], dialogue_id=d) for i, d in enumerate(fresh)]
    )
    switch, held = live_rebuild._switch, []

    def timed_switch(*args):
        started = time.perf_counter()
        try:
            return switch(*args)
        finally:
            held.append(time.perf_counter() - started)

    live_rebuild._switch = timed_switch
    done: list = []

    def rebuild() -> None:
        try:
            started = time.perf_counter()
            done.append((live_rebuild.live_state_rebuild(project_id=project.pk), time.perf_counter() - started))
        finally:
            connection.close()

    thread = threading.Thread(target=rebuild)
    thread.start()
    walls = []
    try:
        for item in items:
            started = time.perf_counter()
            judgements_save(assignment_id=item.pk, user=item.annotator, values=answers(item), submit=True)
            walls.append(time.perf_counter() - started)
            if not thread.is_alive():
                break
            time.sleep(0.05)
        thread.join()
    finally:
        live_rebuild._switch = switch
    switched, took = done[0]
    assert switched >= 1 and LiveState.objects.get(project=project).stale_since is None
    after = []
    for _ in range(5):
        started = time.perf_counter()
        page = client.get(url).content.decode()
        after.append(time.perf_counter() - started)
        assert 'id="live-stale"' not in page
    print(
        f"[{scale}x] after an exclusion: dashboard median {statistics.median(pages) * 1000:.0f} ms of 5 while the "
        f"state is stale (served as it was; before: rebuilt in the request); background rebuild {took:.1f} s wall, "
        f"of which "
        f"the switch under the state's lock {max(held) * 1000:.0f} ms; {len(walls)} submissions during it: wall median "
        f"{statistics.median(walls) * 1000:.0f} ms, max {max(walls) * 1000:.0f} ms; dashboard after it median "
        f"{statistics.median(after) * 1000:.0f} ms (load {load()})"
    )


SAVE_ITEMS, SAVE_ROUNDS = 100, 3


def saves_stage(project, scale: int, items: int = SAVE_ITEMS, rounds: int = SAVE_ROUNDS) -> None:
    """CPU per save through the WSGI application (``config.wsgi``: middleware, DRF, validation, the save, the live
    state's update), in this process, on the project at this size: ``rounds`` new annotators each save ``items``
    new items of dialogues spread over the project three times (partial draft, complete draft, submission,
    ``bench/_wsgi_saves.py``), with the project's live state built first (as after the lead's first dashboard
    view). Median over rounds, as ``bench/save_profile.py --live-state`` at 1x of 100 dialogues."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotator.models import Assignment
    from annotator.selectors.structure import dialogue_shape
    from annotator.services.projects import membership_add
    from config.wsgi import application
    from evaluation.models import LiveState
    from evaluation.services.incremental import live_state_rebuild

    settings.ALLOWED_HOSTS = ["*"]
    if not LiveState.objects.filter(project=project).exists():
        started = time.perf_counter()
        live_state_rebuild(project=project, reason="benchmark")
        print(f"[{scale}x] live state built from every judgement in {time.perf_counter() - started:.1f} s")
    dialogues = list(project.dialogues.order_by("pk").values_list("pk", flat=True))
    step = max(1, len(dialogues) // (items * rounds))
    per_save = []
    for r in range(rounds):
        name = f"saves-{project.slug}-{r}-{int(time.time())}"
        person = get_user_model().objects.create_user(username=name, password="saves-pass-1")
        membership_add(project=project, user=person, role="annotator")
        token = Token.objects.create(user=person).key
        chosen = dialogues[r::step][:items] if step > 1 else dialogues[r * items : (r + 1) * items]
        made = Assignment.objects.bulk_create([Assignment(annotator=person, dialogue_id=d) for d in chosen])
        requests = stc3_save_requests([(a.pk, dialogue_shape(a.dialogue_id).turn_speakers) for a in made])
        started = time.process_time()
        for assignment_id, payload in requests:
            send(application, assignment_id, payload, token)
        per_save.append((time.process_time() - started) / len(requests) * 1000)
    print(
        f"[{scale}x] saves through the WSGI application (token, draft, draft, submission; live state updated): CPU "
        f"per save median {statistics.median(per_save):.2f} ms of {rounds} rounds "
        f"({', '.join(f'{x:.2f}' for x in per_save)}) of {len(requests)} saves (load {load()})"
    )


# -- the benchmark ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=10, help="times the 3,700 dialogues of STC-3 Chinese")
    parser.add_argument("--skip-1x", action="store_true", help="no 1x project (exports measured at the scale only)")
    parser.add_argument("--only", default="import,stats,dashboard,exports,live,saves")
    parser.add_argument("--reuse", action="store_true", help="with DATABASE_URL: keep projects imported earlier")
    parser.add_argument("--exports", help=f"only these exports (comma-separated; default all: {', '.join(EXPORTS)})")
    parser.add_argument("--measure-export", nargs=4, metavar=("SLUG", "EXPORT", "LEAD", "RUN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_export:
        sys.path.insert(0, str(ROOT))
        measure_export(*args.measure_export)
        return
    stages = set(args.only.split(","))
    os.environ.setdefault("API_WRITE_RATE", "1000000/minute")  # the saves stage measures CPU, not the rate limit

    from _setup import django_on_postgres

    env = django_on_postgres(with_redis=True)
    from django.contrib.auth import get_user_model
    from django.test import Client
    from services import celery_worker_command

    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create
    from config.celery import app
    from evaluation.runs.services.scoring import run_score
    from evaluation.tasks import recompute_statistics
    from tests.reference_scoring import random_stc3_run

    print(f"machine: {os.cpu_count()} cores, load average {load()} at the start")
    from annotator.models import Project
    from evaluation.models import ModelReliability, ProjectStatistics, Run, StatisticsJob

    lead = get_user_model().objects.filter(username="scale-lead").first() or get_user_model().objects.create_user(
        username="scale-lead", password="scale-lead-pass-1"
    )
    scales = ([] if args.skip_1x or args.scale == 1 else [1]) + [args.scale]
    projects = {}
    with tempfile.TemporaryDirectory() as tmp:
        real = json.loads(extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp)).read_text(encoding="utf-8"))
        for scale in scales:
            existing = Project.objects.filter(slug=f"scale-{scale}x").first()
            if args.reuse and existing:  # a database kept from an earlier run (DATABASE_URL given)
                projects[scale] = (existing, Run.objects.get(project=existing, name="bench"))
                print(f"[{scale}x] reusing the project imported earlier")
                continue
            folder = Path(tmp) / f"x{scale}"
            folder.mkdir()
            started = time.perf_counter()
            paths = generate(real, REAL_DIALOGUES * scale, folder)
            size = sum(p.stat().st_size for p in paths) / 2**20
            print(
                f"[{scale}x] generated {REAL_DIALOGUES * scale} dialogues in {len(paths)} files, {size:.0f} MiB, "
                f"{time.perf_counter() - started:.1f} s"
            )
            project = project_create(slug=f"scale-{scale}x", preset="stc3")
            membership_add(project=project, user=lead, role="lead")
            started = time.perf_counter()
            report = dialogues_import(project=project, paths=paths)
            took = time.perf_counter() - started
            print(
                f"[{scale}x] import: {report.dialogues} dialogues, {report.posts} posts, {report.judgements} "
                f"judgements in {took:.1f} s ({report.judgements / took:,.0f} judgements/s)   "
                f"(target < 300 s at 10x; load {load()})"
            )
            # a run over every dialogue of the project (its per-dialogue CSV grows with the project)
            run = random_stc3_run([d for p in paths for d in json.loads(p.read_text(encoding="utf-8"))], seed=5)
            run_path = folder / "run.json"
            run_path.write_text(json.dumps(run), encoding="utf-8")
            projects[scale] = (project, run_score(project=project, path=run_path, name="bench"))

    scale = args.scale
    project, run = projects[scale]
    if "stats" in stages:
        app.conf.task_always_eager = False
        app.conf.broker_url = os.environ["CELERY_BROKER_URL"]
        app.conf.result_backend = os.environ["CELERY_RESULT_BACKEND"]
        worker = subprocess.Popen(
            celery_worker_command(name="scale"),
            cwd=ROOT,
            # the worker's own niceness (WORKER_NICENESS, default 10) would make it wait behind everything else on a
            # shared machine: the benchmark's worker runs at 0 unless WORKER_NICENESS is set
            env=dict(
                os.environ,
                DJANGO_SETTINGS_MODULE="config.settings.test",
                WORKER_NICENESS=os.environ.get("WORKER_NICENESS", "0"),
                # the models' estimate is measured, not its scheduling delay (two minutes by default)
                MODEL_ESTIMATE_DELAY_SECONDS=os.environ.get("MODEL_ESTIMATE_DELAY_SECONDS", "0"),
                **env,
            ),
        )
        try:
            while not app.control.ping(timeout=0.5):
                time.sleep(0.2)
            idle = _status_kib(worker.pid, "VmRSS")
            cpu = _cpu_seconds(worker.pid)
            # from scratch: neither the statistics nor the models' estimate of an earlier run are reused, and the
            # estimate is not spaced by an earlier one's duration (as in a new project)
            ModelReliability.objects.filter(project=project).delete()
            StatisticsJob.objects.filter(project=project).update(models_last_duration=0.0, models_pending=False)
            started = time.perf_counter()
            answer = recompute_statistics.apply_async(args=(project.pk, True)).get(timeout=3600)
            took = time.perf_counter() - started
            cpu = _cpu_seconds(worker.pid) - cpu
            peak = _status_kib(worker.pid, "VmHWM")
            print(
                f"[{scale}x] statistics through a worker: {took:.1f} s wall, {cpu:.1f} s CPU of the worker (it runs at "
                f"WORKER_NICENESS) for {answer['n_judgements']} judgements (target < 40 s); worker peak RSS "
                f"{peak / 1024:.0f} MiB (idle {idle / 1024:.0f} MiB; target < 2048 MiB; load {load()})"
            )
            # the recomputation asked the heavy queue for the latent-truth models' estimate, after which the
            # statistics are recomputed once more to carry it: wait for that too (same worker, one at a time)
            started = time.perf_counter()
            pending = ProjectStatistics.objects.filter(project=project).values_list(
                "payload__reliability__models_pending", flat=True
            )
            while pending.first():
                if time.perf_counter() - started > 1800:
                    sys.exit("the models' estimate did not arrive within 30 minutes")
                time.sleep(0.5)
            took = StatisticsJob.objects.get(project=project).models_last_duration
            print(
                f"[{scale}x] then the models' estimate and the statistics carrying it, on the heavy queue: "
                f"{time.perf_counter() - started:.1f} s wall after the statistics (the estimate itself {took:.1f} s; "
                f"the next one waits ten times that); worker peak RSS "
                f"{_status_kib(worker.pid, 'VmHWM') / 1024:.0f} MiB (load {load()})"
            )
        finally:
            worker.terminate()
            worker.wait(timeout=60)
    if "dashboard" in stages:
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(lead)
        url = f"/projects/{project.slug}/dashboard/"
        assert client.get(url).status_code == 200  # warm: the statistics exist (computed above if not)
        times = []
        for _ in range(7):
            started = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - started)
            assert response.status_code == 200
        print(
            f"[{scale}x] dashboard as lead: median {statistics.median(times) * 1000:.0f} ms of 7 "
            f"({', '.join(f'{t * 1000:.0f}' for t in times)}) (target < 300 ms; load {load()})"
        )
    if "live" in stages:
        for s in projects:
            live_figures_stage(projects[s][0], lead, s)
    if "saves" in stages:
        for s in projects:
            saves_stage(projects[s][0], s)
    if "exports" in stages:
        names = args.exports.split(",") if args.exports else list(EXPORTS)
        figures = {s: export_figures(projects[s][0].slug, lead.username, projects[s][1].pk, names) for s in projects}
        print(f"exports (fresh process each; peak RSS above the idle process; load {load()}):")
        for name in names:
            cells = []
            for s, by_name in figures.items():
                f = by_name[name]
                cells.append(
                    f"{s}x: {f['bytes'] / 2**20:7.1f} MiB in {f['seconds']:6.1f} s, "
                    f"peak +{f['peak_above_idle_mib']:6.0f} MiB "
                    f"({'streamed' if f['streamed'] else 'NOT streamed'}, {f['chunks']} chunks, HTTP {f['status']})"
                )
            print(f"  {name:22s} " + " | ".join(cells))
    print(f"load average at the end {load()}")


if __name__ == "__main__":
    main()
