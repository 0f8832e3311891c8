"""What the framework bypasses of the save path and of start-up still gain, each against the framework's own way.

Saves (as ``bench/save_profile.py``: 120 STC-3 Chinese dialogues per round, each item's three saves with the
annotator's token through ``config.wsgi.application`` in this process, on a throwaway PostgreSQL) are sent in
three variants, interleaved round by round so that a change of the machine's load falls on all of them:

- as the platform runs;
- without ``api/save_body.py``: the body read by DRF's ``JudgementsIn`` and the answer written by ``AssignmentOut``;
- without ``config/handlers.py``: token requests through the whole middleware chain.

Then a web process's start-up (``django.setup()`` and the URL configuration with the production settings, in a
new interpreter each time) with and without ``config/deferred_imports.py``, interleaved likewise. Prints the
median CPU of each variant and its ratio to the platform as it runs.

    .venv/bin/python bench/save_bypasses.py [--rounds 5] [--dialogues 120] [--starts 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _setup import ROOT, django_on_postgres, extract
from _wsgi_saves import send, stc3_save_requests

START_UP = """
import os, time
started = time.process_time()
if os.environ["DEFER"] == "no":
    import config.deferred_imports
    config.deferred_imports.DEFERRED = ()
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns
print(time.process_time() - started)
"""


def save_variants():
    """name -> (apply, undo) of each way of saving."""
    import api.serializers as s
    import api.views.assignments as views
    import config.handlers as handlers

    plain_in, plain_out, token_api = views.judgements_in_plain, views.saved_out, handlers.token_api_request

    def undo() -> None:
        views.judgements_in_plain, views.saved_out, handlers.token_api_request = plain_in, plain_out, token_api

    def drf() -> None:
        views.judgements_in_plain = lambda data: None
        views.saved_out = lambda assignment: s.AssignmentOut(assignment).data

    def whole_chain() -> None:
        handlers.token_api_request = lambda request: False

    return {
        "as the platform runs": (lambda: None, undo),
        "DRF serializers (no api/save_body.py)": (drf, undo),
        "whole middleware chain (no config/handlers.py)": (whole_chain, undo),
    }


def saves(rounds: int, per_round: int) -> dict[str, list[float]]:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotator.handout.services.bulk import assignments_create_balanced
    from annotator.models import Assignment
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create
    from config.wsgi import application

    settings.ALLOWED_HOSTS = ["*"]
    with tempfile.TemporaryDirectory() as tmp:
        source = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        dialogues = json.loads(source.read_text(encoding="utf-8"))
    turns = {d["id"]: [t["sender"] for t in d["turns"]] for d in dialogues}
    variants = save_variants()
    results: dict[str, list[float]] = {name: [] for name in variants}
    slug, n = f"bypass-{int(time.time())}", 0
    for _ in range(rounds):
        for name, (apply, undo) in variants.items():
            chosen = dialogues[n * per_round : (n + 1) * per_round]
            n += 1
            with tempfile.TemporaryDirectory() as tmp:
                subset = Path(tmp) / "subset.json"
                plain = [{k: v for k, v in d.items() if k != "annotations"} for d in chosen]
                subset.write_text(json.dumps(plain, ensure_ascii=False), encoding="utf-8")
                project = project_create(slug=f"{slug}-{n}", preset="stc3", annotators_per_dialogue=1)
                dialogues_import(project=project, paths=[subset])
            user = get_user_model().objects.create_user(username=f"{slug}-{n}", password="x-load-pass-1")
            membership_add(project=project, user=user, role="annotator")
            token = Token.objects.create(user=user).key
            assignments_create_balanced(project=project)
            items = Assignment.objects.filter(annotator=user).values_list("pk", "dialogue__external_id")
            requests = stc3_save_requests([(pk, turns[external_id]) for pk, external_id in items])
            apply()
            try:
                started = time.process_time()
                for assignment_id, payload in requests:
                    send(application, assignment_id, payload, token)
                results[name].append((time.process_time() - started) / len(requests) * 1000)
            finally:
                undo()
    return results


def start_ups(starts: int) -> dict[str, list[float]]:
    env = dict(
        os.environ,
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="bench-secret-key-not-used-anywhere-else-0123456789abcdef",
        ALLOWED_HOSTS="localhost",
    )
    results: dict[str, list[float]] = {"deferred (as the platform runs)": [], "imported (no deferred_imports)": []}
    for _ in range(starts):
        for name, defer in zip(results, ("yes", "no"), strict=True):
            done = subprocess.run(
                [sys.executable, "-c", START_UP], cwd=ROOT, env=dict(env, DEFER=defer), capture_output=True, text=True
            )
            results[name].append(float(done.stdout.strip().splitlines()[-1]) * 1000)
    return results


def show(title: str, results: dict[str, list[float]], unit: str) -> None:
    print(title)
    base = statistics.median(next(iter(results.values())))
    for name, values in results.items():
        median = statistics.median(values)
        print(
            f"  {name:48s} {median:8.2f} {unit} (median of {len(values)}: "
            f"{', '.join(f'{v:.2f}' for v in values)}), {median / base:.2f} x"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dialogues", type=int, default=120, help="dialogues (three saves each) per round and variant")
    parser.add_argument("--starts", type=int, default=9)
    args = parser.parse_args()
    os.environ["API_WRITE_RATE"] = "1000000/minute"  # capacity, not the per-user rate limit
    django_on_postgres(with_redis=True)  # tasks are sent to Redis (no worker here), as from gunicorn
    show("CPU per save (this process)", saves(args.rounds, args.dialogues), "ms")
    show("CPU of a web process's start-up", start_ups(args.starts), "ms")
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
