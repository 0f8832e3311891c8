"""Label gold's stop rule told who gave each label: what knowing the annotators' habits buys on DBDC3.

DBDC3's annotators differ in how often they say breakdown (on English dev the middle 80 % of the annotators
with 200 labels or more give X between 0.3 and 1.7 times as often as the others on the same turns). The
platform's rule (``scoring.adaptive.LabelStopRule``) treats a label as a label whoever gave it. Here the
same rule (a turn stops with at least ``--min-k`` labels once the probability that its label at 30 differs
from its label now is at most ``--delta``) is replayed with the posterior over the turn's shares given
*annotator-weighted* evidence instead of its counts (``label_change_probability(..., evidence=...)``):

* annotator j's habit for label k, r_jk = (O_jk + m) / (E_jk + m): O_jk the labels k j gave among those
  collected so far, E_jk what the others' labels on the same turns make expected (the sum over j's turns of
  the other collected labels' share of k), m = ``--shrink`` pseudo-labels pulling r towards 1;
* j's label k weighs v_jk = 1 / r_jk (at most ``--clip`` and at least its inverse), a turn's weights
  rescaled to sum to its n (the same strength of evidence, the shares moved towards what a typical
  annotator would have said); the labels still to come are the Polya urn's from Dirichlet(alpha + evidence)
  (annotators yet unknown: typical ones), and the label at 30 is the counts plus them.

Everything is fitted to the labels collected before each round (the prior alpha as the platform's, the
habits r from the same labels): nothing sees a turn's labels not yet drawn. ``--shrink 5 --clip 4`` were
set before any replay. One JSON line per collection, the platform's rule on the same orders beside it,
and the collections pooled:

    .venv/bin/python bench/label_gold_annotators.py --data ../shared/data --delta 0.02 --replays 5
"""

from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path

import _setup  # puts the project on sys.path (and names the shared data)
import numpy as np
from adaptive_replay import DBDC3_COLLECTIONS, DBDC_LABELS, LABEL_K, summary

from scoring.adaptive import fit_dirichlet_prior, label_change_probability, majority_labels


def read_turns(data: Path, folder: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(labels, annotators) of every system turn with 30 labels, (turns, 30) each, and the number of annotators."""
    labels, annotators, ids = [], [], {}
    with zipfile.ZipFile(data / "dbdc3.zip") as archive:
        names = sorted(n for n in archive.namelist() if n.startswith(f"DBDC3/{folder}/") and n.endswith(".log.json"))
        for member in names:
            for turn in json.loads(archive.read(member))["turns"]:
                given = [(a["annotator-id"], a["breakdown"]) for a in turn["annotations"]]
                given = [(who, label) for who, label in given if label in DBDC_LABELS]
                if len(given) >= LABEL_K:
                    labels.append([DBDC_LABELS.index(label) for _, label in given[:LABEL_K]])
                    annotators.append([ids.setdefault(who, len(ids)) for who, _ in given[:LABEL_K]])
    return np.array(labels), np.array(annotators), len(ids)


def annotator_evidence(one_hot: np.ndarray, annotators: np.ndarray, seen: np.ndarray, n_annotators: int, args):
    """Each turn's annotator-weighted evidence from the labels seen (module docstring), (turns, 3)."""
    counts = (one_hot * seen[:, :, None]).sum(axis=1)
    n = counts.sum(axis=1)
    others = (counts[:, None, :] - one_hot) / np.maximum(n - 1, 1)[:, None, None]  # the other labels' shares
    given, expected = np.zeros((n_annotators, 3)), np.zeros((n_annotators, 3))
    np.add.at(given, annotators[seen], one_hot[seen])
    np.add.at(expected, annotators[seen], others[seen])
    weight = np.clip((expected + args.shrink) / (given + args.shrink), 1 / args.clip, args.clip)
    evidence = (weight[annotators] * one_hot * seen[:, :, None]).sum(axis=1)
    return evidence * (n / np.maximum(evidence.sum(axis=1), 1e-12))[:, None]


def replay(labels, annotators, n_annotators, args, seed: int, aware: bool) -> tuple[np.ndarray, float]:
    """(labels taken per turn, error rate against the 30's label) in one random order of each turn's annotators."""
    order = np.argsort(np.random.default_rng(seed).random(labels.shape), axis=1)
    labels, annotators = np.take_along_axis(labels, order, 1), np.take_along_axis(annotators, order, 1)
    one_hot = np.eye(3)[labels]
    taken = np.full(len(labels), args.min_k)
    open_ = taken < LABEL_K
    while open_.any():
        seen = np.arange(LABEL_K)[None, :] < taken[:, None]
        counts = (one_hot * seen[:, :, None]).sum(axis=1)
        alpha = fit_dirichlet_prior(counts)
        evidence = annotator_evidence(one_hot, annotators, seen, n_annotators, args) if aware else counts
        change = label_change_probability(counts[open_], alpha, LABEL_K, evidence=evidence[open_])
        stopping = np.flatnonzero(open_)[change <= args.delta]
        open_[stopping] = False
        taken[open_] += 1
        open_ &= taken < LABEL_K
    counts = (one_hot * (np.arange(LABEL_K)[None, :] < taken[:, None])[:, :, None]).sum(axis=1)
    return taken, float((majority_labels(counts) != majority_labels(one_hot.sum(axis=1))).mean())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=_setup.SHARED_DATA)
    parser.add_argument("--delta", type=float, default=0.02)
    parser.add_argument("--min-k", type=int, default=3)
    parser.add_argument("--replays", type=int, default=5)
    parser.add_argument("--shrink", type=float, default=5.0, help="m: pseudo-labels pulling a habit towards 1")
    parser.add_argument("--clip", type=float, default=4.0, help="a label's weight at most this and at least 1/this")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--turns", type=int, help="the first N turns of each collection only (the suite's slice)")
    parser.add_argument("--collections", nargs="+", choices=list(DBDC3_COLLECTIONS), default=list(DBDC3_COLLECTIONS))
    args = parser.parse_args(argv)
    fixed, taken = 0, {"platform": 0.0, "annotator_aware": 0.0}
    for name in args.collections:
        labels, annotators, n_annotators = read_turns(args.data, DBDC3_COLLECTIONS[name])
        labels, annotators = labels[: args.turns], annotators[: args.turns]
        line = {"bench": "label_gold_annotators", "collection": name, "delta": args.delta, "turns": len(labels)}
        for rule, aware in (("platform", False), ("annotator_aware", True)):
            runs = [replay(labels, annotators, n_annotators, args, args.seed + r, aware) for r in range(args.replays)]
            judgements = [float(t.sum()) for t, _ in runs]
            line[rule] = {
                "labels_per_turn": round(float(np.mean(judgements)) / len(labels), 3),
                "error_rate": summary([error for _, error in runs]),
                "saving": summary([1 - j / (LABEL_K * len(labels)) for j in judgements]),
            }
            taken[rule] += float(np.mean(judgements))
        fixed += LABEL_K * len(labels)
        print(json.dumps(line), flush=True)
    print(json.dumps({"collection": "all", "saving": {rule: round(1 - t / fixed, 6) for rule, t in taken.items()}}))


if __name__ == "__main__":
    main()
