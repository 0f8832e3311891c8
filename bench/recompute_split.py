"""The scheduled recomputation before and after it stopped computing the running figures (#41), on the STC-3
Chinese training set (3,700 dialogues x 19 annotators, imported on a throwaway PostgreSQL).

The running figures (each criterion's units, Fleiss' and Randolph's kappa, alpha; the label counts; the mean gold
distributions) are kept by the live state with every save and read from it by every reader
(``incremental.statistics_with_running_figures``). In one process and one run, on the same judgement arrays:

* ``project_statistics(running=True)``: the payload as the recomputation computed it before (everything);
* ``project_statistics(running=False)``: what it computes and stores now;
* ``statistics_recompute(force=True)``: the whole scheduled job now (reading the judgements, storing, gold cache);
* the readers' overlay on the stored payload (what the dashboard and the API add per request), and the largest
  difference between the figures it gives and those the full computation gives (0 up to rounding).

    .venv/bin/python bench/recompute_split.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

from _setup import django_on_postgres, extract


def _best(rounds: int, call) -> tuple[float, object]:
    times, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - started)
    return min(times), result


def _largest_difference(full: dict, answered: dict) -> float:
    """The largest absolute difference between the running figures of two payloads (None and NaN alike)."""
    worst = 0.0

    def compare(a, b):
        nonlocal worst
        a = None if a is None or (isinstance(a, float) and math.isnan(a)) else a
        b = None if b is None or (isinstance(b, float) and math.isnan(b)) else b
        if (a is None) != (b is None):
            worst = math.inf
        elif a is not None:
            worst = max(worst, abs(float(a) - float(b)))

    for key, entry in full["criteria"].items():
        other = answered["criteria"][key]
        for name in ("n_units", "fleiss_kappa", "randolph_kappa"):
            compare(entry[name], other[name])
        for level, value in entry["krippendorff_alpha"].items():
            compare(value, other["krippendorff_alpha"][level])
    for key, counts in full["value_counts"].items():
        for value, n in counts.items():
            compare(n, answered["value_counts"][key][value])
    for key, gold in full["gold"].items():
        for value, share in gold["mean_distribution"].items():
            compare(share, answered["gold"][key]["mean_distribution"][value])
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timings per figure (the best is printed)")
    rounds = parser.parse_args().rounds
    django_on_postgres()
    from annotator.selectors.judgement_arrays import project_judgements
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create
    from evaluation.selectors.fingerprint import judgements_fingerprint
    from evaluation.services.incremental import live_state_read, statistics_with_running_figures
    from evaluation.services.live_rebuild import live_state_rebuild
    from evaluation.services.statistics import project_statistics, statistics_recompute

    with tempfile.TemporaryDirectory() as tmp:
        path = extract("stc3.zip", "stc3/train_data_cn.json", Path(tmp))
        project = project_create(slug=f"bench-split-{int(time.time())}", preset="stc3")
        report = dialogues_import(project=project, paths=[path])
    print(f"STC-3 CN train: {report.dialogues} dialogues, {report.judgements} labels")
    live_state_rebuild(project_id=project.pk)
    judgements = project_judgements(project)
    fingerprint = judgements_fingerprint(project)

    before, full = _best(rounds, lambda: project_statistics(project, judgements, fingerprint=fingerprint))
    after, _stored = _best(
        rounds, lambda: project_statistics(project, judgements, fingerprint=fingerprint, running=False)
    )
    job, stored = _best(rounds, lambda: statistics_recompute(project_id=project.pk, force=True))
    state = live_state_read(project)
    read, (answered, _said) = _best(
        rounds, lambda: statistics_with_running_figures(project, stored.payload, state=state)
    )
    size_before, size_after = len(json.dumps(full)), len(json.dumps(stored.payload))
    print(f"computation before (everything)   {before:7.2f} s   payload {size_before / 1024:.0f} KiB")
    print(
        f"computation after (not additive)  {after:7.2f} s   payload {size_after / 1024:.0f} KiB   "
        f"ratio after/before {after / before:.3f}"
    )
    print(f"whole scheduled job after         {job:7.2f} s   (reading, computing, storing, gold cache)")
    print(f"readers' overlay per request      {read * 1000:7.1f} ms")
    worst = _largest_difference(full, answered)
    print(f"largest difference of a running figure, overlay vs full computation: {worst:.2e}")


if __name__ == "__main__":
    main()
