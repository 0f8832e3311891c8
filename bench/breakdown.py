"""The 22 breakdown metrics (plus precision and recall) for a run over the DBDC3 English dev and eval sets.

The run is a seeded "gold distribution with noise" baseline: each turn's prediction is drawn from
a Dirichlet around its gold counts.
Times the library on the pooled turns and per dialogue, and the end-to-end score_run service
(import into PostgreSQL first, then reading the gold from the database and the run files).

    .venv/bin/python bench/breakdown.py
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np
from _setup import django_on_postgres, extract


def main() -> None:
    django_on_postgres()
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create
    from evaluation.runs.services.scoring import run_score
    from scoring.breakdown import classification_metrics
    from scoring.runs import breakdown_distribution_metrics, pool_breakdown

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = extract("dbdc3.zip", "DBDC3/dbdc3/en/", Path(tmp))
        run_dir = Path(tmp) / "run"
        run_dir.mkdir()
        counts, labels, probs = [], [], []
        for path in sorted(root.rglob("*.log.json")):
            dialogue = json.loads(path.read_text(encoding="utf-8"))
            turns = []
            for turn in dialogue["turns"]:
                if not turn["annotations"]:
                    continue
                c = [sum(a["breakdown"] == x for a in turn["annotations"]) for x in "OTX"]
                p = rng.dirichlet(np.array(c) + 1)
                label = int(np.argmax(p))
                counts.append(c)
                labels.append(label)
                probs.append(p)
                turns.append(
                    {
                        "turn-index": turn["turn-index"],
                        "labels": [{"breakdown": "OTX"[label], "prob-O": p[0], "prob-T": p[1], "prob-X": p[2]}],
                    }
                )
            (run_dir / f"{dialogue['dialogue-id']}.labels.json").write_text(
                json.dumps({"dialogue-id": dialogue["dialogue-id"], "turns": turns})
            )
        counts, labels, probs = np.array(counts, dtype=float), np.array(labels), np.array(probs)
        started = time.perf_counter()
        per_turn = breakdown_distribution_metrics(probs, counts)
        metrics = classification_metrics(labels, counts) | pool_breakdown(per_turn)
        library = time.perf_counter() - started

        project = project_create(slug=f"bench-dbdc-{int(time.time())}", preset="dbdc")
        started = time.perf_counter()
        report = dialogues_import(project=project, paths=[root / "dev", root / "eval"])
        imported = time.perf_counter() - started
        started = time.perf_counter()
        run = run_score(project=project, path=run_dir, name="noisy-gold")
        end_to_end = time.perf_counter() - started
    print(f"dialogues / system turns        {report.dialogues} / {len(counts)}")
    print(f"import dev + eval               {imported:.1f} s ({report.judgements} labels)")
    print(f"library, 26 metrics pooled      {library * 1000:.1f} ms")
    print(f"score_run incl. database        {end_to_end:.2f} s (pooled and per dialogue, saved)")
    for name in ("Accuracy(NB,PB,B)", "F1(B)", "JSD(NB,PB,B)", "MSE(NB+PB,B)", "MSE+w(NB,PB,B)"):
        print(f"  {name:<22} {run.scores['breakdown'][name]:.4f}")
    assert len(metrics) == 26


if __name__ == "__main__":
    main()
