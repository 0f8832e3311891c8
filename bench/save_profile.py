"""CPU per save through Django's WSGI handler (no HTTP server), with a cProfile of the save path.

Starts a throwaway PostgreSQL and Redis like the other benches (tasks are queued, not run),
imports 200 STC-3 Chinese dialogues into a project with K = 1, and sends each item's three saves
(partial draft, complete draft, submission: the requests ``bench/api_load.py`` sends) to
``config.wsgi.application`` in this process: the middleware, DRF, the validation and the save,
without the network and gunicorn. Prints the CPU per save (median of rounds) and, with
``--profile FILE``, writes a cProfile (CPU time) of the last round's saves. With ``--live-state`` each
project's live statistics exist before the saves (as after the lead's first dashboard view), so each
submission also updates them; without, they are built at the first read and the saves skip them.

    .venv/bin/python bench/save_profile.py [--dialogues 200] [--rounds 5] [--profile FILE] [--live-state]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _setup import django_on_postgres, extract
from _wsgi_saves import send, stc3_save_requests


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dialogues", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", type=Path)
    parser.add_argument(
        "--live-state",
        action="store_true",
        help="build each project's live statistics first (as a dashboard view does): submissions then update them",
    )
    args = parser.parse_args()
    os.environ["API_WRITE_RATE"] = "1000000/minute"  # capacity, not the per-user rate limit
    django_on_postgres(with_redis=True)  # tasks are sent to Redis (no worker here), as from gunicorn
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
    slug = f"save-{int(time.time())}"
    rounds = []
    for r in range(args.rounds):
        chosen = dialogues[r * args.dialogues : (r + 1) * args.dialogues]
        with tempfile.TemporaryDirectory() as tmp:
            subset = Path(tmp) / "subset.json"
            subset.write_text(
                json.dumps([{k: v for k, v in d.items() if k != "annotations"} for d in chosen], ensure_ascii=False),
                encoding="utf-8",
            )
            project = project_create(slug=f"{slug}-{r}", preset="stc3", annotators_per_dialogue=1)
            dialogues_import(project=project, paths=[subset])
        user = get_user_model().objects.create_user(username=f"{slug}-{r}", password="x-load-pass-1")
        membership_add(project=project, user=user, role="annotator")
        token = Token.objects.create(user=user).key
        assignments_create_balanced(project=project)
        items = list(Assignment.objects.filter(annotator=user).values_list("pk", "dialogue__external_id"))
        requests = stc3_save_requests([(assignment_id, turns[external_id]) for assignment_id, external_id in items])
        if args.live_state:  # as after a lead's first dashboard view: each submission updates the live figures
            from evaluation.services.incremental import live_state_rebuild

            live_state_rebuild(project=project, reason="benchmark")

        profiler = cProfile.Profile(time.process_time) if args.profile and r == args.rounds - 1 else None
        started = time.process_time()
        if profiler:
            profiler.enable()
        for assignment_id, payload in requests:
            send(application, assignment_id, payload, token)
        if profiler:
            profiler.disable()
            profiler.dump_stats(str(args.profile))
        else:
            rounds.append((time.process_time() - started) / len(requests) * 1000)
    print(
        f"CPU per save (this process)     {statistics.median(rounds):.2f} ms median of {len(rounds)} rounds "
        f"({', '.join(f'{x:.2f}' for x in rounds)}), {len(requests)} saves each"
    )
    print(f"load average                    {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
