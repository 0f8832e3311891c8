"""Judges on the real collections: a human held out of the pool, a judge answering at random and a judge
giving one label always, each with its verdict against the reference judges.

Imports STC-3 CN (3,700 dialogues x 19 annotators, STC-3 preset) and DBDC3 EN eval (30 annotators per
turn, breakdown preset) into a throwaway PostgreSQL (``bench/_setup.py``). For each, a typical annotator
(median agreement with the others' majority among those with 50+ labels) is excluded from the human
pool (an annotator exclusion, so the humans' figures no longer count them) and registered as a judge
with their labels; a second judge answers every unit uniformly at random, with a random (Dirichlet)
distribution; a third always gives the middle of the scale ("T" in DBDC, "0" on STC-3's A, S and E).
Prints one JSON line per (collection, judge): the verdict, the alignment it used, the alt-test, the best
trivial reference and the held-out reference, kappa per criterion, alpha without and with the judge, the
median PPI width ratio, ECE and the seconds the report took.

    .venv/bin/python bench/judge_real_data.py [--only stc3-cn,dbdc3-en] [--epsilon E]

Without ``--epsilon`` the margin is who annotated says (here: not stated, the crowd workers' 0.1).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from _setup import django_on_postgres, extract

COLLECTIONS = {
    "stc3-cn": ("stc3", lambda tmp: [extract("stc3.zip", "stc3/train_data_cn.json", tmp)]),
    "dbdc3-en": ("dbdc", lambda tmp: [extract("dbdc3.zip", "DBDC3/dbdc3/en/eval/", tmp)]),
}
MIDDLE = {"stc3-cn": "0", "dbdc3-en": "T"}


def project_with_judges(name: str):
    """The collection imported, a typical annotator held out as a judge, and a random judge."""
    from django.contrib.auth import get_user_model

    from annotator.models import Project
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create
    from tests.factories import judge_constant, judges_held_out_and_random

    slug = f"bench-judges-{name}"
    Project.objects.filter(slug=slug).delete()
    get_user_model().objects.filter(username__startswith=f"{slug}.imported.").delete()
    preset, paths = COLLECTIONS[name]
    project = project_create(slug=slug, preset=preset, name=name)
    with tempfile.TemporaryDirectory() as tmp:
        dialogues_import(project=project, paths=paths(Path(tmp)))
    held, rand, user_id = judges_held_out_and_random(project)
    constant = judge_constant(project, MIDDLE[name], f"always-{MIDDLE[name]}")
    return project, [held, rand, constant], get_user_model().objects.get(pk=user_id).username


def summary(name: str, report: dict, seconds: float, held_out: str) -> dict:
    ratios = [r["width_ratio"] for r in report["ppi"]["systems"] if r["width_ratio"] is not None]
    test = report["alt_test"]
    return {
        "collection": name,
        "judge": report["judge"]["name"],
        "held_out": held_out if report["judge"]["name"] == "held-out-human" else None,
        "verdict": test["verdict"],
        "margin": test["margin"],
        "alt_test": {k: test[k] for k in ("epsilon", "winning_rate", "passed", "rho")}
        | {"annotators_tested": len(test["per_annotator"])},
        "criteria": {
            key: {
                "verdict": c["verdict"],
                "alignment": c["scoring"],
                "winning_rate": c["alignments"][c["scoring"]]["judge"]["winning_rate"],
                "rho": c["alignments"][c["scoring"]]["judge"]["rho"],
                "best_trivial": {k: (c["best_trivial"] or {}).get(k) for k in ("kind", "label", "rho", "passed")},
                "held_out_beats_it": (c["held_out_against_best"] or {}).get("beats"),
                "alpha_humans": c["human_agreement"]["alpha"],
                "other_alignments": {
                    s: {k: a["judge"][k] for k in ("winning_rate", "passed", "rho")} | {"verdict": a["verdict"]}
                    for s, a in c["alignments"].items()
                    if s != c["scoring"]
                },
            }
            for key, c in test["criteria"].items()
            if "verdict" in c
        },
        "kappa": {k: (a["kappa"] or {}).get("value") for k, a in report["agreement"].items()},
        "kappa_quadratic": {k: (a["kappa_quadratic"] or {}).get("value") for k, a in report["agreement"].items()},
        "alpha_humans_vs_with_judge": {
            k: [(a["alpha_humans"] or {}).get("value"), (a["alpha_with_judge"] or {}).get("value")]
            for k, a in report["agreement"].items()
        },
        "ppi_width_ratio_median": float(np.median(ratios)) if ratios else None,
        "ppi_rows": len(report["ppi"]["systems"]),
        "ece": {k: (c or {}).get("ece") for k, c in report["calibration"].items()},
        "report_seconds": round(seconds, 2),
        "load": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(COLLECTIONS))
    parser.add_argument("--epsilon", type=float, default=None, help="default: from who annotated")
    args = parser.parse_args()
    django_on_postgres()
    from evaluation.judges.services.report import judge_report

    for name in args.only.split(","):
        project, judges, held_out = project_with_judges(name)
        for judge in judges:
            started = time.perf_counter()
            report = judge_report(project, judge, epsilon=args.epsilon)
            print(
                json.dumps(summary(name, report, time.perf_counter() - started, held_out), ensure_ascii=False),
                flush=True,
            )


if __name__ == "__main__":
    main()
