"""Time of one adaptive hand-out on a real-size project: STC-3 Chinese (3,700 dialogues, 19 imported annotators
each) switched to an adaptive budget (max K 30): the items' states at the default threshold, then (threshold 0, so that
every hand-out finds an item) new annotators ask for items one after another, first with the judgements counted
(as without live statistics: ``counted``), then reading the live per-unit counts (``live``; switching adaptive on
had them built, the rebuild's time is printed too). The two runs hand out the same items (checked).

Prints, as one JSON line, the import time, the items, the hand-outs timed, their median and largest wall time
and the queries one hand-out makes (``annotator.handout.services.adaptive.adaptive_assign``), per mode.

    .venv/bin/python bench/adaptive_handout.py [--handouts 20] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _setup import django_on_postgres, extract


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--handouts", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="print where one status read spends its time")
    args = parser.parse_args()
    django_on_postgres()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotator.handout.services.adaptive import adaptive_assign, adaptive_budget_update
    from annotator.models import Role
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create

    with tempfile.TemporaryDirectory() as tmp:
        path = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        project = project_create(slug=f"bench-adaptive-{int(time.time())}", preset="stc3")
        started = time.perf_counter()
        report = dialogues_import(project=project, paths=[path])
        imported = time.perf_counter() - started
    from annotator.handout.selectors.adaptive import adaptive_status

    adaptive_budget_update(project=project, adaptive=True, min_k=3, max_k=30, stop_rule="expected_change")
    started = time.perf_counter()
    states = adaptive_status(project).counts()  # at the default threshold (0.01), with the 19 imported labels
    status_s = time.perf_counter() - started
    adaptive_budget_update(project=project, threshold=0.0)  # nothing settles: every hand-out finds an item
    from annotator import events
    from evaluation.services.live_rebuild import live_state_rebuild

    live_counts = events.live_unit_counts  # what the selector asks (annotator.handout.selectors.adaptive)

    def hand_outs(mode: str) -> tuple[dict, list[int]]:
        events.live_unit_counts = live_counts if mode == "live" else (lambda **_kwargs: None)
        walls, queries, given = [], [], []
        for i in range(args.handouts):
            user = get_user_model().objects.create_user(f"{project.slug}-{mode}{i}", password="x")
            membership_add(project=project, user=user, role=Role.ANNOTATOR)
            with CaptureQueriesContext(connection) as seen:
                started = time.perf_counter()
                assignment = adaptive_assign(project=project, user=user)
                walls.append(time.perf_counter() - started)
            assert assignment is not None
            queries.append(len(seen.captured_queries))
            given.append(assignment.dialogue_id)
            assignment.delete()  # the next mode starts from the same project
        events.live_unit_counts = live_counts
        figures = {
            "handout_median_s": round(statistics.median(walls), 4),
            "handout_max_s": round(max(walls), 4),
            "queries_per_handout": max(queries),
        }
        return figures, given

    from evaluation.models import LiveState

    live_state_rebuild(project_id=project.pk)  # (switching adaptive on asked for it: in-process it has run already)
    rebuild_s = LiveState.objects.get(project=project).rebuild_seconds
    counted, counted_items = hand_outs("counted")
    if args.profile:  # one live hand-out, and the statements it makes with their times
        import cProfile
        import pstats

        user = get_user_model().objects.create_user(f"{project.slug}-profiled", password="x")
        membership_add(project=project, user=user, role=Role.ANNOTATOR)
        with cProfile.Profile() as profile, CaptureQueriesContext(connection) as seen:
            adaptive_assign(project=project, user=user).delete()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
        for query in seen.captured_queries:
            print(query["time"], query["sql"][:160])
    live, live_items = hand_outs("live")
    assert live_items == counted_items, "the live counts handed out other items"
    print(
        json.dumps(
            {
                "dialogues": report.dialogues,
                "judgements": report.judgements,
                "import_s": round(imported, 1),
                "states_at_0.01": states,
                "status_s": round(status_s, 3),
                "handouts": args.handouts,
                "counted": counted,
                "live_state_rebuild_s": round(rebuild_s, 2),
                "live": live,
                "same_items": True,
                "load": [round(x, 2) for x in os.getloadavg()],
            }
        )
    )


if __name__ == "__main__":
    main()
