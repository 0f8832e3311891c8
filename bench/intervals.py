"""What the intervals on the agreement figures add to a recomputation, on STC-3 CN (3,700 dialogues x 19
annotators) and DBDC3 EN (dev + eval, 561 annotators).

Imports both into a throwaway PostgreSQL, computes each project's statistics payload as the worker does
(``project_statistics``) and reports the total time, the part spent in the intervals and the data behind them
(the agreement blocks' bootstrap and the Cohen matrices', 1,000 resamples each, timed inside the same run),
and the payload's size with that part and without.

    .venv/bin/python bench/intervals.py
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from _setup import django_on_postgres, extract


def timed(module, name: str, spent: list[float]):
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - started)

    setattr(module, name, wrapper)


def without_evidence(payload: dict) -> dict:
    """The payload as it was before the intervals: each block's added keys and the Cohen intervals removed."""
    added = {"intervals", "categories", "category_counts", "coincidences", "pairable_values"}
    cohen = {"ci_low", "ci_high", "ci_method", "confidence", "jackknife_below", "resamples", "category_counts"}

    def strip(block: dict) -> dict:
        out = {k: v for k, v in block.items() if k not in added}
        for part in ("by_speaker", "merges"):
            if part in out:
                out[part] = {k: strip(v) for k, v in out[part].items()}
        return out

    payload = dict(payload, criteria={k: strip(v) for k, v in payload["criteria"].items()})
    kappa = {k: {f: x for f, x in v.items() if f not in cohen} for k, v in payload["reliability"]["kappa"].items()}
    payload["reliability"] = dict(payload["reliability"], kappa=kappa)
    return payload


def main() -> None:
    django_on_postgres()
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create
    from evaluation.services import reliability, statistics
    from evaluation.services.statistics import project_statistics

    blocks: list[float] = []
    cohen: list[float] = []
    timed(statistics, "agreement_evidence", blocks)
    timed(reliability, "kappa_matrix_evidence", cohen)
    with tempfile.TemporaryDirectory() as tmp:
        stc3 = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        dbdc = extract("dbdc3.zip", "DBDC3/dbdc3/en/", Path(tmp))
        collections = [("STC-3 CN train", "stc3", [stc3]), ("DBDC3 EN dev+eval", "dbdc", [dbdc / "dev", dbdc / "eval"])]
        for name, preset, paths in collections:
            project = project_create(slug=f"bench-intervals-{preset}-{int(time.time())}", preset=preset)
            report = dialogues_import(project=project, paths=paths)
            for attempt in range(2):
                blocks.clear()
                cohen.clear()
                started = time.perf_counter()
                payload = project_statistics(project)
                total = time.perf_counter() - started
                size = len(json.dumps(payload))
                before = len(json.dumps(without_evidence(payload)))
                print(
                    f"{name:<18} {report.dialogues} dialogues, {report.judgements} labels; statistics {total:.2f} s, "
                    f"of which intervals {sum(blocks):.2f} s ({len(blocks)} agreement blocks) + Cohen matrices "
                    f"{sum(cohen):.2f} s ({len(cohen)} criteria); payload {size / 1024:.0f} KiB "
                    f"(without intervals {before / 1024:.0f} KiB){' again' if attempt else ''}"
                )


if __name__ == "__main__":
    main()
