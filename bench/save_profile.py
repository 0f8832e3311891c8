"""CPU per save through Django's WSGI handler (no HTTP server), with a cProfile of the save path.

Starts a throwaway PostgreSQL and Redis like the other benches (tasks are queued, not run),
imports 200 STC-3 Chinese dialogues into a project with K = 1, and sends each item's three saves
(partial draft, complete draft, submission: the requests ``bench/api_load.py`` sends) to
``config.wsgi.application`` in this process: the middleware, DRF, the validation and the save,
without the network and gunicorn. Prints the CPU per save (median of rounds) and, with
``--profile FILE``, writes a cProfile (CPU time) of the last round's saves.

    .venv/bin/python bench/save_profile.py [--dialogues 200] [--rounds 5] [--profile FILE]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _setup import django_on_postgres, extract


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dialogues", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", type=Path)
    args = parser.parse_args()
    os.environ["API_WRITE_RATE"] = "1000000/minute"  # capacity, not the per-user rate limit
    django_on_postgres(with_redis=True)  # tasks are sent to Redis (no worker here), as from gunicorn
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotator.models import Assignment
    from annotator.services.assignment import assignments_create_balanced
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
        requests = []
        for assignment_id, external_id in items:
            senders = turns[external_id]
            nuggets = [("CNUG" if s == "customer" else "HNUG") for s in senders]
            judgements = [{"criterion": k, "unit": 0, "value": "1"} for k in "ASE"]
            judgements += [{"criterion": "nugget", "unit": t, "value": v} for t, v in enumerate(nuggets)]
            for phase in range(3):
                body = {"judgements": judgements if phase else judgements[:2], "submit": phase == 2, "seconds": 3}
                requests.append((assignment_id, json.dumps(body).encode()))

        def send(assignment_id: int, payload: bytes, token: str = token) -> None:
            environ = {
                "REQUEST_METHOD": "POST",
                "PATH_INFO": f"/api/assignments/{assignment_id}/judgements/",
                "SCRIPT_NAME": "",
                "QUERY_STRING": "",
                "SERVER_NAME": "127.0.0.1",
                "SERVER_PORT": "8000",
                "SERVER_PROTOCOL": "HTTP/1.1",
                "REMOTE_ADDR": "127.0.0.1",
                "HTTP_HOST": "127.0.0.1",
                "HTTP_AUTHORIZATION": f"Token {token}",
                "CONTENT_TYPE": "application/json",
                "CONTENT_LENGTH": str(len(payload)),
                "wsgi.input": io.BytesIO(payload),
                "wsgi.url_scheme": "http",
                "wsgi.errors": sys.stderr,
                "wsgi.multithread": False,
                "wsgi.multiprocess": True,
                "wsgi.run_once": False,
                "wsgi.version": (1, 0),
            }
            status = []
            body = b"".join(application(environ, lambda line, headers, *rest: status.append(line)))
            if not status[0].startswith("200"):
                sys.exit(f"save refused: {status[0]} {body[:300]!r}")

        profiler = cProfile.Profile(time.process_time) if args.profile and r == args.rounds - 1 else None
        started = time.process_time()
        if profiler:
            profiler.enable()
        for assignment_id, payload in requests:
            send(assignment_id, payload)
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
