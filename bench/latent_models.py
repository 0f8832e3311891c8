"""How long the latent-truth models take on the real collections, through the platform and in crowd-kit itself.

Imports DBDC3 EN (eval: 2,000 system turns x 30 annotators) and STC-3 EN (the first 1,600 dialogues of the
training set, 19 annotators each: enough for every size limit) into a throwaway
PostgreSQL, reads each criterion's judgements as the heavy-queue estimate does (``project_judgements``) and
fits Dawid-Skene, GLAD and MACE on at most the judgements the estimate fits (``MODEL_LIMITS``: the first
dialogues up to that many labels), each once through the platform (``scoring.aggregation.aggregate``) and once
through crowd-kit called directly as the platform called it before it had its own MACE (rows sorted by unit
then annotator; MACE with 100 iterations and 3 restarts). MACE is also fitted by crowd-kit on the same rows
with the worker and label names renamed to their order of first appearance, where crowd-kit's MACE indexes
its strategy counts consistently (see ``scoring.aggregation``'s MACE notes): "crowd-kit*".

Prints CPU seconds (``time.process_time``) per fit, and the agreement of each reference with the platform:
the largest absolute difference of the posteriors and of the per-annotator reliabilities, and the share of
units whose most probable label is the same. ``/proc/loadavg`` is printed before and after.

    .venv/bin/python bench/latent_models.py [--methods mace,glad,dawid-skene] [--collections dbdc3,stc3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from _setup import django_on_postgres, extract


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip()


def stc3_part(tmp: Path, n: int) -> Path:
    """The first ``n`` dialogues of STC-3's English training set, as a file to import."""
    dialogues = json.loads(extract("stc3.zip", "stc3/train_data_en.json", tmp).read_text(encoding="utf-8"))
    path = tmp / "stc3_part.json"
    path.write_text(json.dumps(dialogues[:n]), encoding="utf-8")
    return path


def first_dialogues(data, limit: int):
    """The judgements of the first dialogues (in dialogue order) up to ``limit`` labels, units renumbered."""
    per_unit = np.bincount(data.unit, minlength=data.n_units)
    order = np.argsort(data.unit_dialogue, kind="stable")
    dialogues = data.unit_dialogue[order]
    starts = np.r_[True, dialogues[1:] != dialogues[:-1]]
    per_dialogue = np.add.reduceat(per_unit[order], np.nonzero(starts)[0])
    keep = dialogues[starts][np.cumsum(per_dialogue) <= limit]
    use = np.isin(data.unit_dialogue[data.unit], keep)
    units, unit = np.unique(data.unit[use], return_inverse=True)
    return unit, data.annotator[use], data.value[use], len(units)


def crowdkit_fit(method: str, unit, annotator, value, n_units: int, n_values: int, n_annotators: int, renamed=False):
    """crowd-kit called directly: posteriors (units x values) and reliability per annotator."""
    import pandas as pd
    from crowdkit.aggregation import GLAD, MACE, DawidSkene

    from scoring.reliability import spammer_score

    order = np.lexsort((annotator, unit))
    frame = pd.DataFrame({"task": unit[order], "worker": annotator[order], "label": value[order]})
    worker_names = label_names = None
    if renamed:
        codes, worker_names = pd.factorize(frame["worker"])
        labels, label_names = pd.factorize(frame["label"])
        frame = frame.assign(worker=codes, label=labels)
    reliability = np.full(n_annotators, np.nan)
    if method == "mace":
        model = MACE(n_iter=100, n_restarts=3, random_state=0).fit(frame)
        codes, names = pd.factorize(frame["worker"])
        names = np.asarray(names if worker_names is None else np.asarray(worker_names)[names], dtype=np.int64)
        reliability[names] = model.spamming_[:, 1]
    elif method == "glad":
        model = GLAD(n_iter=100).fit(frame)
        reliability[model.alphas_.index.to_numpy(dtype=np.int64)] = model.alphas_.to_numpy(dtype=float)
    else:
        model = DawidSkene(n_iter=100).fit(frame)
        seen = sorted(model.errors_.columns)
        workers = model.errors_.index.get_level_values(0).unique()
        confusion = np.stack(
            [model.errors_.loc[w].reindex(index=seen, columns=seen, fill_value=0.0).to_numpy().T for w in workers]
        )
        reliability[workers.to_numpy(dtype=np.int64)] = spammer_score(confusion)
    probas = model.probas_
    columns = probas.columns.to_numpy(dtype=np.int64)
    if label_names is not None:
        columns = np.asarray(label_names, dtype=np.int64)[columns]
    posteriors = np.zeros((n_units, n_values))
    posteriors[np.ix_(probas.index.to_numpy(dtype=np.int64), columns)] = probas.to_numpy(dtype=float)
    return posteriors / posteriors.sum(axis=1, keepdims=True), reliability


def cpu(fn, *args, **kwargs):
    started = time.process_time()
    out = fn(*args, **kwargs)
    return time.process_time() - started, out


def agreement(ours, theirs) -> str:
    p, r = ours
    q, s = theirs
    both = np.isfinite(r) & np.isfinite(s)
    return (
        f"max|dP| {np.max(np.abs(p - q)):.1e}  max|dR| {np.max(np.abs(r[both] - s[both])):.1e}  "
        f"same label {np.mean(p.argmax(axis=1) == q.argmax(axis=1)):.4f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--methods", default="mace,glad,dawid-skene")
    parser.add_argument("--collections", default="dbdc3,stc3")
    args = parser.parse_args()
    django_on_postgres()
    from annotator.selectors.judgement_arrays import project_judgements
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import project_create
    from evaluation.services.model_reliability import MODEL_LIMITS
    from scoring.aggregation import aggregate

    warnings.simplefilter("ignore", FutureWarning)
    warnings.simplefilter("ignore", DeprecationWarning)
    print(f"load before: {loadavg()}")
    stamp = int(time.time())
    with tempfile.TemporaryDirectory() as tmp:
        sources = {
            "dbdc3": ("dbdc", lambda: [extract("dbdc3.zip", "DBDC3/dbdc3/en/eval/", Path(tmp))]),
            "stc3": ("stc3", lambda: [stc3_part(Path(tmp), 1600)]),
        }
        for collection in args.collections.split(","):
            preset, paths = sources[collection]
            project = project_create(slug=f"bench-models-{collection}-{stamp}", preset=preset)
            dialogues_import(project=project, paths=paths())
            for key, data in project_judgements(project).items():
                if not len(data.value):
                    continue
                for method in args.methods.split(","):
                    unit, annotator, value, n_units = first_dialogues(data, MODEL_LIMITS[method])
                    sizes = {"n_units": n_units, "n_values": len(data.values), "n_annotators": len(data.annotators)}
                    seconds, result = cpu(aggregate, unit, annotator, value, method=method, **sizes)
                    ours = (result.posteriors, result.reliability)
                    label = (
                        f"{collection}/{key:<10} {method:<11} {len(value):>6} labels {n_units:>5} units "
                        f"{len(np.unique(annotator)):>4} annotators"
                    )
                    print(f"{label}  platform  {seconds:7.2f} s")
                    references = [("crowd-kit", False)] + ([("crowd-kit*", True)] if method == "mace" else [])
                    for name, renamed in references:
                        seconds_ck, theirs = cpu(crowdkit_fit, method, unit, annotator, value, renamed=renamed, **sizes)
                        print(
                            f"{label}  {name:<10}{seconds_ck:7.2f} s  ratio {seconds_ck / max(seconds, 1e-9):6.1f}x  "
                            f"{agreement(ours, theirs)}"
                        )
    print(f"load after: {loadavg()}")


if __name__ == "__main__":
    main()
