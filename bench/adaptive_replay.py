"""Adaptive budgets replayed on the seeds' real collections: judgements saved at the quality of fixed K.

Each collection's annotators really labelled every item (STC-3 CN and EN: 19 per dialogue, with the
A/S/E quality scores and a nugget label per turn; DBDC3 EN dev + eval: 30 per system turn, O/T/X). A
replay puts each item's annotators in a random order and lets a policy decide how many of them it
takes, drawing their real labels in that order:

* fixed K: the first K of every item (K = 10 for STC-3, 15 for DBDC3, the issue's reference points);
* adaptive: ``scoring.adaptive`` - at least ``--min-k``, at most every annotator the item has, stopping
  when the stop rule says the item is stable (every criterion and every turn of the dialogue);
* adaptive at the fixed budget: no stop rule, the same total judgements as fixed K, each round the
  open items with the highest ``allocation_priority`` (expected gold change) get one more annotator.

Quality is the mean JSD of each unit's collected distribution to its full-annotator distribution (the
mean over a criterion's units, then over criteria). To match fixed K's quality the rule's threshold is
bisected on a calibration half of the items (even positions, replays on other seeds) until the adaptive
mean JSD is at most fixed K's there; the figures are then measured on the other half (odd positions)
over ``--replays`` replays. A judgement is one annotator labelling one item (a whole dialogue for
STC-3, one turn for DBDC3). saving = 1 - adaptive / fixed judgements. Every figure is the mean over the
replays with the 2.5-97.5 percentile range. Krippendorff's alpha and Fleiss' kappa (nominal, mean over
criteria) are of the labels each policy collected.

    .venv/bin/python bench/adaptive_replay.py --data ../shared/data            # the figures (about 9 minutes)
    .venv/bin/python bench/adaptive_replay.py --collections dbdc3-en --items 600 --replays 3   # the suite's slice
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import _setup  # puts the project on sys.path (and names the shared data)
import numpy as np

from scoring.adaptive import StopRule, allocation_priority
from scoring.adaptive.states import items_stable
from scoring.adaptive.stop_rules import jsd_rows
from scoring.agreement import fleiss_kappa, krippendorff_alpha_from_counts

QUALITY = ("A", "S", "E")
QUALITY_VALUES = (-2, -1, 0, 1, 2)
CUSTOMER_NUGGETS = ("CNUG0", "CNUG", "CNUG*", "CNaN")
HELPDESK_NUGGETS = ("HNUG", "HNUG*", "HNaN")
DBDC_LABELS = ("O", "T", "X")
FIXED_K = {"stc3-cn": 10, "stc3-en": 10, "dbdc3-en": 15}


@dataclass
class Criterion:
    """One criterion's real labels: ``labels[u, j]`` the category index annotator j gave unit u (-1: none)."""

    labels: np.ndarray  # (units, annotators)
    item: np.ndarray  # (units,) the item of each unit
    n_categories: int


@dataclass
class Collection:
    name: str
    criteria: dict[str, Criterion]
    annotators: np.ndarray  # (items,) annotators per item

    def subset(self, keep: np.ndarray) -> Collection:
        """The items at positions ``keep`` (renumbered 0..)."""
        new_index = np.full(len(self.annotators), -1)
        new_index[keep] = np.arange(len(keep))
        criteria = {}
        for name, c in self.criteria.items():
            rows = np.isin(c.item, keep)
            criteria[name] = Criterion(c.labels[rows], new_index[c.item[rows]], c.n_categories)
        return Collection(self.name, criteria, self.annotators[keep])


def read_stc3(data: Path, language: str) -> Collection:
    with zipfile.ZipFile(data / "stc3.zip") as archive:
        dialogues = json.loads(archive.read(f"stc3/train_data_{language}.json"))
    width = max(len(d["annotations"]) for d in dialogues)
    quality = {q: np.full((len(dialogues), width), -1) for q in QUALITY}
    nuggets = {"customer": ([], []), "helpdesk": ([], [])}
    for i, dialogue in enumerate(dialogues):
        for j, annotation in enumerate(dialogue["annotations"]):
            for q in QUALITY:
                quality[q][i, j] = QUALITY_VALUES.index(annotation["quality"][q])
        for t, turn in enumerate(dialogue["turns"]):
            side = "customer" if turn["sender"] == "customer" else "helpdesk"
            names = CUSTOMER_NUGGETS if side == "customer" else HELPDESK_NUGGETS
            row = np.full(width, -1)
            for j, annotation in enumerate(dialogue["annotations"]):
                if t < len(annotation["nugget"]) and annotation["nugget"][t] in names:
                    row[j] = names.index(annotation["nugget"][t])
            nuggets[side][0].append(row)
            nuggets[side][1].append(i)
    items = np.arange(len(dialogues))
    criteria = {q: Criterion(quality[q], items, len(QUALITY_VALUES)) for q in QUALITY}
    for side, names in (("customer", CUSTOMER_NUGGETS), ("helpdesk", HELPDESK_NUGGETS)):
        criteria[f"nugget_{side}"] = Criterion(np.array(nuggets[side][0]), np.array(nuggets[side][1]), len(names))
    annotators = np.array([len(d["annotations"]) for d in dialogues])
    return Collection(f"stc3-{language}", criteria, annotators)


def read_dbdc3_en(data: Path) -> Collection:
    rows = []
    with zipfile.ZipFile(data / "dbdc3.zip") as archive:
        names = sorted(n for n in archive.namelist() if n.startswith("DBDC3/dbdc3/en/") and n.endswith(".log.json"))
        for name in names:
            for turn in json.loads(archive.read(name))["turns"]:
                labels = [
                    DBDC_LABELS.index(a["breakdown"]) for a in turn["annotations"] if a["breakdown"] in DBDC_LABELS
                ]
                if labels:
                    rows.append(labels)
    width = max(len(r) for r in rows)
    labels = np.full((len(rows), width), -1)
    for u, r in enumerate(rows):
        labels[u, : len(r)] = r
    items = np.arange(len(rows))
    return Collection("dbdc3-en", {"breakdown": Criterion(labels, items, 3)}, np.array([len(r) for r in rows]))


READERS = {
    "stc3-cn": lambda data: read_stc3(data, "cn"),
    "stc3-en": lambda data: read_stc3(data, "en"),
    "dbdc3-en": read_dbdc3_en,
}


class Replay:
    """One random order of every item's annotators: counts after the first r of them, for any r."""

    def __init__(self, collection: Collection, rng: np.random.Generator):
        self.collection = collection
        width = max(c.labels.shape[1] for c in collection.criteria.values())
        # A random order per item; a turn follows its dialogue's order (one annotator labels the whole item).
        keys = rng.random((len(collection.annotators), width))
        keys[np.arange(width)[None, :] >= collection.annotators[:, None]] = np.inf  # absent annotators last
        order = np.argsort(keys, axis=1)
        self.cumulative = {}
        for name, c in collection.criteria.items():
            ordered = np.take_along_axis(c.labels, order[c.item][:, : c.labels.shape[1]], axis=1)
            one_hot = (ordered[:, :, None] == np.arange(c.n_categories)[None, None, :]).astype(float)
            zeros = np.zeros((len(ordered), 1, c.n_categories))
            self.cumulative[name] = np.concatenate([zeros, np.cumsum(one_hot, axis=1)], axis=1)
        self.items = {name: c.item for name, c in collection.criteria.items()}

    def counts(self, taken: np.ndarray) -> dict[str, np.ndarray]:
        """Per criterion the counts when item i has taken its first ``taken[i]`` annotators."""
        return {name: cum[np.arange(len(cum)), taken[self.items[name]]] for name, cum in self.cumulative.items()}

    def full(self) -> dict[str, np.ndarray]:
        return self.counts(self.collection.annotators)


def quality(replay: Replay, taken: np.ndarray) -> dict[str, float]:
    """Mean JSD to the full-annotator gold (mean over units, then criteria), alpha and kappa of what was taken."""
    counts, full = replay.counts(taken), replay.full()
    jsds, alphas, kappas = [], [], []
    for name in counts:
        if not len(counts[name]):
            continue
        estimate = counts[name] / counts[name].sum(axis=1, keepdims=True)
        gold = full[name] / full[name].sum(axis=1, keepdims=True)
        jsds.append(float(jsd_rows(estimate, gold).mean()))
        alphas.append(krippendorff_alpha_from_counts(counts[name]))
        kappas.append(fleiss_kappa(counts[name]))
    return {
        "judgements": float(taken.sum()),
        "mean_jsd": float(np.mean(jsds)),
        "alpha": float(np.nanmean(alphas)),
        "kappa": float(np.nanmean(kappas)),
    }


def fixed(replay: Replay, k: int) -> np.ndarray:
    return np.minimum(k, replay.collection.annotators)


def adaptive(replay: Replay, rule: StopRule) -> np.ndarray:
    """Labels per item under the stop rule alone (no budget: the order items are served in does not matter)."""
    cap = replay.collection.annotators if rule.max_k is None else np.minimum(rule.max_k, replay.collection.annotators)
    taken = np.minimum(rule.min_k, cap)
    open_ = taken < cap
    while open_.any():
        stable = items_stable(rule, replay.counts(taken), replay.items, len(taken))
        open_ &= ~stable
        taken = np.where(open_, taken + 1, taken)
        open_ &= taken < cap
    return taken


def adaptive_at_budget(replay: Replay, budget: int, min_k: int, batch_share: float = 0.05) -> np.ndarray:
    """Labels per item when ``budget`` judgements go, a batch at a time, to the open items of highest priority."""
    cap = replay.collection.annotators
    rule = StopRule("expected_change", threshold=0.0, min_k=min_k, max_k=None)
    taken = np.minimum(min_k, cap)
    batch = max(1, int(batch_share * len(taken)))
    while (left := budget - int(taken.sum())) > 0:
        priority = allocation_priority(replay.counts(taken), rule, replay.items, len(taken))
        priority[taken >= cap] = -np.inf
        chosen = np.argsort(-priority, kind="stable")[: min(batch, left)]
        chosen = chosen[np.isfinite(priority[chosen])]
        if not len(chosen):
            break
        taken[chosen] += 1
    return taken


def summary(values) -> dict:
    values = np.asarray(values, dtype=float)
    low, high = np.quantile(values, [0.025, 0.975])
    return {"mean": round(float(values.mean()), 6), "interval": [round(float(low), 6), round(float(high), 6)]}


def calibrate(collection: Collection, k: int, args) -> tuple[float, dict]:
    """The largest threshold (bisected on log scale) whose adaptive mean JSD is at most fixed K's."""
    replays = [
        Replay(collection, np.random.default_rng(10_000 + args.seed + r)) for r in range(args.calibration_replays)
    ]
    target = np.mean([quality(r, fixed(r, k))["mean_jsd"] for r in replays])

    def mean_jsd(threshold):
        rule = StopRule(args.rule, threshold, args.min_k, None, args.prior)
        return np.mean([quality(r, adaptive(r, rule))["mean_jsd"] for r in replays])

    low, high = np.log(args.threshold_low), np.log(args.threshold_high)  # low meets the target, high need not
    for _ in range(args.bisections):
        middle = (low + high) / 2
        low, high = (middle, high) if mean_jsd(np.exp(middle)) <= target else (low, middle)
    return float(np.exp(low)), {"fixed_mean_jsd": round(float(target), 6), "replays": len(replays)}


def error_curves(collection: Collection, seeds) -> np.ndarray:
    """E[i, n]: item i's expected share of the mean JSD when it takes n annotators (mean over the seeds' replays)."""
    width = int(collection.annotators.max())
    curves = np.zeros((len(collection.annotators), width + 1))
    for seed in seeds:
        replay = Replay(collection, np.random.default_rng(seed))
        full = replay.full()
        for n in range(1, width + 1):
            counts = replay.counts(np.minimum(n, collection.annotators))
            for name, c in counts.items():
                estimate = c / c.sum(axis=1, keepdims=True)
                gold = full[name] / full[name].sum(axis=1, keepdims=True)
                share = jsd_rows(estimate, gold) / len(c) / len(counts) / len(seeds)
                np.add.at(curves[:, n], replay.items[name], share)
    return curves


def _best_allocation(collection: Collection, k: int, choose: np.ndarray, judge: np.ndarray) -> float:
    """Saving of the allocation minimising choose[i, n_i] + lambda n_i (lambda swept) meeting fixed K on judge."""
    rows = np.arange(len(choose))
    fixed_taken = np.minimum(k, collection.annotators)
    target = judge[rows, fixed_taken].sum()
    ns = np.arange(choose.shape[1])
    beyond = ns[None, :] > collection.annotators[:, None]
    best = np.inf
    for penalty in np.geomspace(1e-10, 1e-1, 600):
        cost = np.where(beyond, np.inf, choose + penalty * ns[None, :])
        cost[:, 0] = np.inf  # every item gets at least one annotator
        taken = np.argmin(cost, axis=1)
        if judge[rows, taken].sum() <= target:
            best = min(best, taken.sum())
    return float(1 - best / fixed_taken.sum())


def oracle_saving(collection: Collection, k: int, seeds) -> dict:
    """What an allocation that knew each item's error curve would save at fixed K's mean JSD.

    No rule sees the curves (a sequential rule sees the labels it drew instead). The curves E[i, n] are
    estimated from replays; "in_sample" chooses each item's n_i and judges the result on the same curves
    (flattered by their estimation noise, an upper figure), "held_out" chooses on half the replays and
    judges on the other half.
    """
    seeds = list(seeds)
    first, second = error_curves(collection, seeds[0::2]), error_curves(collection, seeds[1::2])
    both = (first + second) / 2
    return {
        "in_sample": round(_best_allocation(collection, k, both, both), 4),
        "held_out": round(_best_allocation(collection, k, first, second), 4),
    }


def run(collection: Collection, args) -> dict:
    k = FIXED_K[collection.name]
    positions = np.arange(len(collection.annotators))
    threshold, calibration = calibrate(collection.subset(positions[0::2]), k, args)
    report = collection.subset(positions[1::2])
    rule = StopRule(args.rule, threshold, args.min_k, None, args.prior)
    results = {"fixed": [], "adaptive": [], "equal_budget": [], "full": []}
    states = []
    for r in range(args.replays):
        replay = Replay(report, np.random.default_rng(args.seed + r))
        taken_fixed = fixed(replay, k)
        taken_adaptive = adaptive(replay, rule)
        results["fixed"].append(quality(replay, taken_fixed))
        results["adaptive"].append(quality(replay, taken_adaptive))
        results["equal_budget"].append(quality(replay, adaptive_at_budget(replay, int(taken_fixed.sum()), args.min_k)))
        results["full"].append(quality(replay, report.annotators))
        states.append(float(np.mean(taken_adaptive >= report.annotators)))

    def part(name, keys=("judgements", "mean_jsd", "alpha", "kappa")):
        return {key: summary([q[key] for q in results[name]]) for key in keys}

    saving = [1 - a["judgements"] / f["judgements"] for a, f in zip(results["adaptive"], results["fixed"], strict=True)]
    matched = [a["mean_jsd"] <= f["mean_jsd"] for a, f in zip(results["adaptive"], results["fixed"], strict=True)]
    budget_better = [
        b["mean_jsd"] <= f["mean_jsd"] for b, f in zip(results["equal_budget"], results["fixed"], strict=True)
    ]
    taken_mean = results["adaptive"][0]["judgements"] / len(report.annotators)
    return {
        "bench": "adaptive_replay",
        "collection": collection.name,
        "items": len(report.annotators),
        "calibration_items": len(positions[0::2]),
        "replays": args.replays,
        "rule": {"kind": args.rule, "threshold": threshold, "min_k": args.min_k, "max_k": "all", "prior": args.prior},
        "calibration": calibration,
        "fixed": {"k": k, **part("fixed")},
        "adaptive": {**part("adaptive"), "labels_per_item": round(taken_mean, 2), "at_maximum_share": summary(states)},
        "equal_budget": part("equal_budget", ("judgements", "mean_jsd")),
        "full": part("full", ("judgements", "alpha", "kappa")),
        "saving": summary(saving),
        "oracle_saving": oracle_saving(report, k, range(50_000, 50_000 + args.oracle_replays)),
        "quality_matched_share": float(np.mean(matched)),
        "equal_budget_better_share": float(np.mean(budget_better)),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=_setup.SHARED_DATA)
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--collections", nargs="+", default=list(READERS), choices=list(READERS))
    parser.add_argument("--items", type=int, default=None, help="only the first N items (the suite's slice)")
    parser.add_argument("--rule", default="expected_change", choices=["expected_change", "interval_width"])
    parser.add_argument("--min-k", type=int, default=3)
    parser.add_argument("--prior", type=float, default=0.5)
    parser.add_argument("--calibration-replays", type=int, default=5)
    parser.add_argument("--bisections", type=int, default=14)
    parser.add_argument("--threshold-low", type=float, default=1e-5)
    parser.add_argument("--threshold-high", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--oracle-replays", type=int, default=40)
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        sys.exit(f"needs {args.data} (the real collections beside the repository)")
    for name in args.collections:
        collection = READERS[name](args.data)
        if args.items:
            collection = collection.subset(np.arange(min(args.items, len(collection.annotators))))
        print(json.dumps(run(collection, args)), flush=True)


if __name__ == "__main__":
    main()
