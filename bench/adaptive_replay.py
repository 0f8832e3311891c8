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

Label gold (``--gold label``): the gold of a DBDC3 system turn is its majority label under the DBDC3 rule
(``scoring.adaptive.majority_labels``, ``--label-threshold`` t, ties to O, then T, then X) among its 30
annotators. The six collections (English dev and eval, Japanese eval, each in the original and the
revised release) are replayed in random annotator order under ``scoring.adaptive.LabelStopRule`` (at
least ``--min-k``, at most 30, stopping once the probability that the turn's label at 30 differs from
its label now is at most ``--delta``; the rule's prior refitted to the counts collected so far before
every round, as the platform fits it to a project's labels), and each line says how often the stopped
label agrees with the full 30's (error rate = 1 - agreement) and the judgements saved against K = 30.
A judgement is one annotator labelling one turn, and a turn stops on its own (``per_dialogue``: the
same when an annotator is given a whole dialogue and a dialogue stops when its last turn does). The
last line pools the six collections.

    .venv/bin/python bench/adaptive_replay.py --data ../shared/data --gold label --delta 0.02 --replays 20

Each line's ``oracle_bound`` is the most any rule deciding a turn from its own labels could save on that
collection at an expected error rate of ``--delta`` (with the same min and max K): the Bayes-optimal stop
rule given the collection's own full counts as its model (``label_gold_rules.oracle_stops``), exact over
the random orders; fitted to the replays it is judged on, it is a bound, not a rule.

``--label-rule`` replays another rule in the platform's place, to measure what a weaker promise buys
(``bench/label_gold_rules.py``): ``bayes_optimal`` holds only the expected error rate over the units at
delta (the Bayes sequential rule under the same refitted prior), ``lead`` stops on a lead of ``--lead``
votes (no stated error rate), ``per_unit_mixture`` is the platform's rule under a Dirichlet-mixture prior.
Whatever the rule, a line's ``expected_error`` is the mean change probability at the stops under the
platform's prior (one Dirichlet) fitted to the final counts.

    .venv/bin/python bench/adaptive_replay.py --data ../shared/data --gold label --delta 0.02 --label-rule bayes_optimal
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
from label_gold_rules import BayesOptimalLabelRule, LeadRule, MixturePerUnitLabelRule, oracle_stops

from scoring.adaptive import (
    LabelStopRule,
    StopRule,
    allocation_priority,
    fit_dirichlet_prior,
    label_change_probability,
    majority_labels,
)
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

# label gold's collections: name -> the folder of DBDC3.zip holding its dialogues
DBDC3_COLLECTIONS = {
    "dbdc3-en-dev": "dbdc3/en/dev",
    "dbdc3-en-eval": "dbdc3/en/eval",
    "dbdc3-ja-eval": "dbdc3/ja/eval",
    "dbdc3-revised-en-dev": "dbdc3_revised/en/dev",
    "dbdc3-revised-en-eval": "dbdc3_revised/en/eval",
    "dbdc3-revised-ja-eval": "dbdc3_revised/ja/eval",
}
LABEL_K = 30  # DBDC3's annotators per system turn: fixed K, and K_max of the label rule


def read_dbdc3_turns(data: Path, folder: str, name: str) -> tuple[Collection, np.ndarray]:
    """One DBDC3 collection with each system turn an item, and each turn's dialogue (in file order)."""
    rows, dialogue = [], []
    with zipfile.ZipFile(data / "dbdc3.zip") as archive:
        names = sorted(n for n in archive.namelist() if n.startswith(f"DBDC3/{folder}/") and n.endswith(".log.json"))
        for d, member in enumerate(names):
            for turn in json.loads(archive.read(member))["turns"]:
                labels = [
                    DBDC_LABELS.index(a["breakdown"]) for a in turn["annotations"] if a["breakdown"] in DBDC_LABELS
                ]
                if labels:
                    rows.append(labels[:LABEL_K])
                    dialogue.append(d)
    if not rows:
        sys.exit(f"{data / 'dbdc3.zip'} has no annotated turn under DBDC3/{folder}/")
    labels = np.full((len(rows), LABEL_K), -1)
    for u, r in enumerate(rows):
        labels[u, : len(r)] = r
    items = np.arange(len(rows))
    annotators = np.array([len(r) for r in rows])
    return Collection(name, {"breakdown": Criterion(labels, items, 3)}, annotators), np.array(dialogue)


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


def label_replay(collection: Collection, rule: LabelStopRule, rng: np.random.Generator) -> dict:
    """One replay of label gold: judgements taken, agreement with the full annotators' label, e(c) at the stops."""
    replay = Replay(collection, rng)
    taken = adaptive(replay, rule)
    counts = replay.counts(taken)["breakdown"]
    got = majority_labels(counts, rule.threshold)
    full = majority_labels(replay.full()["breakdown"], rule.threshold)
    alpha = fit_dirichlet_prior(counts)  # the rule's own prior at the end (the lead rule has none)
    expected = label_change_probability(counts, alpha, rule.max_k, rule.threshold)
    return {"taken": taken, "agreement": float((got == full).mean()), "expected_error": float(expected.mean())}


def label_rule(args):
    """The label rule replayed: the platform's (``per_unit``) or one of ``label_gold_rules``'s."""
    limits = {"min_k": args.min_k, "max_k": LABEL_K, "threshold": args.label_threshold}
    if args.label_rule == "bayes_optimal":
        return BayesOptimalLabelRule(delta=args.delta, **limits)
    if args.label_rule == "per_unit_mixture":
        return MixturePerUnitLabelRule(delta=args.delta, **limits)
    if args.label_rule == "lead":
        return LeadRule(lead=args.lead, **limits)
    return LabelStopRule(delta=args.delta, **limits)


def label_run(collection: Collection, dialogue: np.ndarray, args) -> dict:
    """One collection's line for ``--gold label`` (see the module docstring), with the per-turn replays' taken."""
    rule = label_rule(args)
    fixed_judgements = int(np.minimum(LABEL_K, collection.annotators).sum())
    _, dialogue = np.unique(dialogue, return_inverse=True)
    annotators = np.zeros(dialogue.max() + 1, dtype=int)
    np.maximum.at(annotators, dialogue, collection.annotators)
    by_dialogue = Collection(
        collection.name, {"breakdown": Criterion(collection.criteria["breakdown"].labels, dialogue, 3)}, annotators
    )
    turns_of = np.bincount(dialogue)
    replays, dialogue_judgements = [], []
    for r in range(args.replays):
        replays.append(label_replay(collection, rule, np.random.default_rng(args.seed + r)))
        # a dialogue given whole: the same rule, an annotator labels all its turns, it stops with its last turn
        taken = adaptive(Replay(by_dialogue, np.random.default_rng(args.seed + r)), rule)
        dialogue_judgements.append(float((taken * turns_of).sum()))
    judgements = [float(r["taken"].sum()) for r in replays]
    agreement = [r["agreement"] for r in replays]
    _, oracle = oracle_stops(replay_full_counts(collection), args.min_k, args.delta, args.label_threshold)
    return {
        "bench": "adaptive_replay",
        "collection": collection.name,
        "gold": "label",
        "delta": args.delta,
        "items": len(collection.annotators),
        "replays": args.replays,
        "rule": {
            "kind": args.label_rule,
            **({"lead": args.lead} if args.label_rule == "lead" else {}),
            "min_k": args.min_k,
            "max_k": LABEL_K,
            "label_threshold": args.label_threshold,
        },
        "fixed": {"k": LABEL_K, "judgements": fixed_judgements},
        "adaptive": {
            "judgements": summary(judgements),
            "labels_per_turn": round(float(np.mean(judgements)) / len(collection.annotators), 3),
            "agreement_with_full": summary(agreement),
            "error_rate": summary([1 - a for a in agreement]),
            "expected_error": summary([r["expected_error"] for r in replays]),
        },
        "saving": summary([1 - j / fixed_judgements for j in judgements]),
        "per_dialogue": {
            "judgements": summary(dialogue_judgements),
            "saving": summary([1 - j / fixed_judgements for j in dialogue_judgements]),
        },
        # the most any rule deciding a turn from its own labels could save at this expected error rate on these turns
        "oracle_bound": {
            "labels_per_turn": round(oracle["labels_per_unit"], 3),
            "expected_error": round(oracle["expected_error"], 6),
            "saving": round(1 - oracle["labels_per_unit"] / LABEL_K, 6),
        },
    }


def replay_full_counts(collection: Collection) -> np.ndarray:
    """Each turn's counts from all its annotators, (turns, 3)."""
    labels = collection.criteria["breakdown"].labels
    return np.stack([(labels == k).sum(axis=1) for k in range(3)], axis=1)


def pooled(lines: list[dict]) -> dict:
    """The collections taken together: judgements and errors summed over them (means of the replays)."""
    items = sum(line["items"] for line in lines)
    fixed_judgements = sum(line["fixed"]["judgements"] for line in lines)
    judgements = sum(line["adaptive"]["judgements"]["mean"] for line in lines)
    errors = sum(line["adaptive"]["error_rate"]["mean"] * line["items"] for line in lines)
    return {
        "bench": "adaptive_replay",
        "collection": "all",
        "collections": [line["collection"] for line in lines],
        "gold": "label",
        "delta": lines[0]["delta"],
        "rule": lines[0]["rule"],
        "items": items,
        "fixed": {"k": LABEL_K, "judgements": fixed_judgements},
        "adaptive": {"judgements": round(judgements, 1), "error_rate": round(errors / items, 6)},
        "saving": round(1 - judgements / fixed_judgements, 6),
        "oracle_bound": {
            "saving": round(
                sum(line["oracle_bound"]["saving"] * line["fixed"]["judgements"] for line in lines) / fixed_judgements,
                6,
            ),
        },
    }


def main_label(args) -> None:
    names = args.collections or list(DBDC3_COLLECTIONS)
    unknown = sorted(set(names) - set(DBDC3_COLLECTIONS))
    if unknown:
        sys.exit(f"label gold replays the DBDC3 collections ({', '.join(DBDC3_COLLECTIONS)}), not {', '.join(unknown)}")
    lines = []
    for name in names:
        collection, dialogue = read_dbdc3_turns(args.data, DBDC3_COLLECTIONS[name], name)
        if args.items:
            keep = np.arange(min(args.items, len(collection.annotators)))
            collection, dialogue = collection.subset(keep), dialogue[keep]
        lines.append(label_run(collection, dialogue, args))
        print(json.dumps(lines[-1]), flush=True)
    if len(lines) > 1:
        print(json.dumps(pooled(lines)), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=_setup.SHARED_DATA)
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--gold", choices=["distribution", "label"], default="distribution")
    parser.add_argument("--delta", type=float, default=0.02, help="label gold: the stop rule's error rate")
    parser.add_argument("--label-threshold", type=float, default=0.0, help="label gold: the majority's threshold t")
    parser.add_argument(
        "--label-rule",
        choices=["per_unit", "per_unit_mixture", "bayes_optimal", "lead"],
        default="per_unit",
        help="label gold: the platform's rule (each unit's error at most delta), the same under a Dirichlet-mixture "
        "prior, the Bayes-optimal rule at an expected error rate of delta, or the lead heuristic "
        "(bench/label_gold_rules.py)",
    )
    parser.add_argument("--lead", type=int, default=5, help="label gold, --label-rule lead: the votes of lead")
    parser.add_argument(
        "--collections",
        nargs="+",
        default=None,
        choices=[*READERS, *DBDC3_COLLECTIONS],
        help="default: STC-3 CN, EN and DBDC3 EN (distribution gold); the six DBDC3 collections (label gold)",
    )
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
    if args.gold == "label":
        return main_label(args)
    for name in args.collections or list(READERS):
        collection = READERS[name](args.data)
        if args.items:
            collection = collection.subset(np.arange(min(args.items, len(collection.annotators))))
        print(json.dumps(run(collection, args)), flush=True)


if __name__ == "__main__":
    main()
