"""Scoring a run against gold distributions: dialogue quality, nugget detection, breakdown distributions.

References
----------
Sakai (2017) (``sakai2017_snod_task_design.txt``): per-dialogue M(d), nugget detection as the
weighted average of customer and helpdesk utterance blocks (Eq. 12), the mean over dialogues
(macro average, Eqs. 11, 13). DialEval-1 publishes -log2 of the mean as well.
Tsunomori et al. (2020) (``tsunomori2020_breakdown_metrics.txt``), Table 1: JSD and MSE for the
label groupings (NB,PB,B), (NB,PB+B), (NB+PB,B) and their Simpson-weighted "+w" forms.
The DBDC3 evaluation script (``prog/eval/eval.py``, github.com/dbd-challenge/dbdc3): merged bins
as sums of probabilities, JSD and MSE averaged over the annotated system turns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from scoring.breakdown import GROUPINGS, classification_metrics, gold_shares
from scoring.errors import N_, InputError
from scoring.gold import gold_distribution, merge_counts
from scoring.measures import jsd, mse, nmd, rnss, rsnod, simpson_index
from scoring.metric_names import BREAKDOWN_METRICS
from scoring.run_files import DBDCGold, DBDCRun, STC3Run


def neglog2(x):
    """-log2(x), the form DialEval publishes (higher is better).

    >>> float(neglog2(0.25))
    2.0
    """
    with np.errstate(divide="ignore"):
        return -np.log2(x)


def group_mean(values, groups, n_groups: int) -> np.ndarray:
    """Mean of ``values`` per group index; NaN for an empty group.

    >>> group_mean([1.0, 3.0, 5.0], [0, 0, 2], 3).tolist()
    [2.0, nan, 5.0]
    """
    groups = np.asarray(groups, dtype=np.int64)
    total = np.bincount(groups, weights=np.asarray(values, dtype=float), minlength=n_groups)
    count = np.bincount(groups, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)


def quality_scores(estimates, gold_counts) -> dict[str, np.ndarray]:
    """Per-dialogue RSNOD and NMD of estimated quality distributions (dialogues x L) against the gold.

    >>> s = quality_scores([[0, 1/3, 2/3]], [[3, 0, 0]])
    >>> round(float(s["rsnod"][0]), 4), round(float(s["nmd"][0]), 4)
    (0.8333, 0.8333)
    """
    gold = gold_distribution(gold_counts)
    return {"rsnod": rsnod(estimates, gold), "nmd": nmd(estimates, gold)}


def nugget_dialogue_scores(
    customer_p,
    customer_gold,
    customer_dialogue,
    helpdesk_p,
    helpdesk_gold,
    helpdesk_dialogue,
    n_dialogues: int,
    alpha: float = 0.5,
) -> dict[str, np.ndarray]:
    """Per-dialogue nugget detection: alpha * mean over customer turns + (1 - alpha) * mean over helpdesk turns.

    A dialogue with turns of only one speaker is scored on that speaker's turns (Sakai 2017, Eq. 12).

    >>> s = nugget_dialogue_scores([[1, 0, 0, 0]], [[2, 0, 0, 0]], [0], [[0, 1, 0]], [[2, 0, 0]], [0], 1)
    >>> round(float(s["rnss"][0]), 4), round(float(s["jsd"][0]), 4)
    (0.5, 0.5)
    """
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    out = {}
    customer_q = gold_distribution(customer_gold) if len(customer_dialogue) else None
    helpdesk_q = gold_distribution(helpdesk_gold) if len(helpdesk_dialogue) else None
    for name, measure in (("rnss", rnss), ("jsd", jsd)):
        c = group_mean(
            measure(customer_p, customer_q) if len(customer_dialogue) else [], customer_dialogue, n_dialogues
        )
        h = group_mean(
            measure(helpdesk_p, helpdesk_q) if len(helpdesk_dialogue) else [], helpdesk_dialogue, n_dialogues
        )
        both = alpha * c + (1 - alpha) * h
        out[name] = np.where(np.isnan(c), h, np.where(np.isnan(h), c, both))
    return out


def _mean(values: np.ndarray) -> float:
    return float(np.nanmean(values)) if len(values) else float("nan")


MISSING_LISTED = 20  # the first missing dialogues, by id, kept with the scores


def run_coverage(
    covered: Iterable[str], gold: Iterable[str], *, covered_turns: int | None = None, gold_turns: int | None = None
) -> dict:
    """How much of the gold a run covers: ``{"dialogues", "gold_dialogues", "complete", "missing", "n_missing"}``
    (and ``turns``, ``gold_turns`` where the gold's units are turns). A run that leaves out dialogues is scored
    on what it gives; this says so, so that it is never shown as complete or ranked beside complete runs
    without a mark.

    Parameters
    ----------
    covered : the ids of the gold dialogues the run scored
    gold : the ids of every dialogue of the gold
    covered_turns, gold_turns : the annotated turns the run scored, and the gold's (DBDC)

    Examples
    --------
    >>> run_coverage(["a", "b"], ["a", "b", "c"])
    {'dialogues': 2, 'gold_dialogues': 3, 'complete': False, 'missing': ['c'], 'n_missing': 1}
    """
    gold, covered = set(gold), set(covered)
    missing = sorted(gold - covered)
    out = {
        "dialogues": len(gold & covered),
        "gold_dialogues": len(gold),
        "complete": not missing and (covered_turns is None or covered_turns == gold_turns),
        "missing": missing[:MISSING_LISTED],
        "n_missing": len(missing),
    }
    if covered_turns is not None:
        out.update({"turns": covered_turns, "gold_turns": gold_turns})
    return out


def stc3_run_scores(
    run: STC3Run,
    *,
    source: str,
    quality_gold: dict[str, dict[str, np.ndarray]],
    nugget_gold: tuple[np.ndarray, np.ndarray] | None,
    alpha: float = 0.5,
    gold_dialogues: Iterable[str] | None = None,
) -> tuple[dict, dict[str, dict[str, float]]]:
    """Score an STC-3/DialEval run read by ``scoring.run_files.read_stc3_run``: (scores, per dialogue).

    ``quality_gold[key][d]``: the label counts of dialogue ``d`` on quality criterion ``key`` (over the run's
    quality scale); ``nugget_gold``: the label counts of each customer and each helpdesk row of the run
    (``run.customer``, ``run.helpdesk``; NaN rows for turns without gold), or None when there is no nugget
    criterion. Dialogue quality: the mean RSNOD and NMD over the dialogues per criterion; nugget detection:
    the mean over dialogues of the customer/helpdesk weighted per-dialogue RNSS and JSD (``alpha``, Sakai
    2017, Eqs. 11-13), dialogues without gold turns left out; DialEval's -log2 forms beside each mean.
    Both ``manage.py score_run`` and ``python -m scoring stc3`` score through this function. A run dialogue
    with a quality estimate but no gold for it raises ``InputError`` naming ``source``, the dialogue and the
    field. ``gold_dialogues``: every dialogue of the gold, for ``scores["coverage"]`` (``run_coverage``).
    """
    scores: dict = {"quality": {}, "n_dialogues": len(run.dialogues)}
    if gold_dialogues is not None:
        scores["coverage"] = run_coverage(run.dialogues, gold_dialogues)
    per_dialogue: dict[str, dict] = {d: {} for d in run.dialogues}
    for key, (positions, estimates) in run.quality.items():
        if len(positions) == 0:
            continue
        ids = [run.dialogues[i] for i in positions]
        missing = [d for d in ids if d not in quality_gold[key]]
        if missing:
            raise InputError(
                source,
                N_("has no gold %(key)s judgements"),
                record=missing[0],
                field=f"quality.{key}",
                params={"key": key},
            )
        gold = np.array([quality_gold[key][d] for d in ids])
        values = quality_scores(estimates, gold)
        mean_rsnod, mean_nmd = _mean(values["rsnod"]), _mean(values["nmd"])
        scores["quality"][key] = {
            "rsnod": mean_rsnod,
            "nmd": mean_nmd,
            "rsnod_neglog2": float(neglog2(mean_rsnod)),
            "nmd_neglog2": float(neglog2(mean_nmd)),
        }
        for d, r, n in zip(ids, values["rsnod"].tolist(), values["nmd"].tolist()):
            per_dialogue[d][f"{key}.rsnod"], per_dialogue[d][f"{key}.nmd"] = r, n
    if nugget_gold is not None and (len(run.customer.turn) or len(run.helpdesk.turn)):
        customer_gold, helpdesk_gold = nugget_gold
        values = nugget_dialogue_scores(
            run.customer.p,
            customer_gold,
            run.customer.dialogue,
            run.helpdesk.p,
            helpdesk_gold,
            run.helpdesk.dialogue,
            len(run.dialogues),
            alpha,
        )
        scored = ~np.isnan(values["rnss"])
        mean_rnss, mean_jsd = _mean(values["rnss"][scored]), _mean(values["jsd"][scored])
        scores["nugget"] = {
            "rnss": mean_rnss,
            "jsd": mean_jsd,
            "rnss_neglog2": float(neglog2(mean_rnss)),
            "jsd_neglog2": float(neglog2(mean_jsd)),
        }
        for i in np.nonzero(scored)[0]:
            per_dialogue[run.dialogues[i]].update(
                nugget_rnss=float(values["rnss"][i]), nugget_jsd=float(values["jsd"][i])
            )
    return scores, per_dialogue


def breakdown_distribution_metrics(estimates, gold_counts) -> dict[str, np.ndarray]:
    """Per system turn, JSD and MSE for the three groupings and their Simpson weights.

    As the DBDC3 evaluation script: the gold distribution is p*_l = n_l / n, a merged bin is the
    sum of its labels' probabilities (estimate: prob-T + prob-X; gold: p*_T + p*_X), then
    JSD(p, p*) = (KL(p || m) + KL(p* || m)) / 2 with m = (p + p*)/2 and log base 2, and
    MSE = sum_i (p_i - p*_i)^2 / L over the L bins of the grouping.
    Returns arrays keyed by the Table 1 names without "+w" (per turn), plus ``"w"``: the weight
    w = sum_l p*_l^2 of Eq. (1), computed on the three-label gold distribution for every
    grouping as Eq. (1) is written over {NB, PB, B}.

    >>> m = breakdown_distribution_metrics([[1.0, 0.0, 0.0]], [[1, 1, 1]])
    >>> round(float(m["MSE(NB,PB,B)"][0]), 4), round(float(m["MSE(NB+PB,B)"][0]), 4), round(float(m["w"][0]), 4)
    (0.2222, 0.1111, 0.3333)
    """
    estimates = np.asarray(estimates, dtype=float)
    gold_counts = np.asarray(gold_counts, dtype=float)
    out = {"w": simpson_index(gold_distribution(gold_counts))}
    for grouping, groups in GROUPINGS.items():
        p = merge_counts(estimates, groups)
        q = gold_shares(gold_counts, groups)
        out[f"JSD({grouping})"] = jsd(p, q)
        out[f"MSE({grouping})"] = mse(p, q)
    return out


def pool_breakdown(per_turn: dict[str, np.ndarray], rows=None) -> dict[str, float]:
    """Pool per-turn metrics over turns (as the DBDC3 evaluation script does): the mean for the
    plain metrics, sum(w m) / sum(w) for the "+w" metrics. ``rows`` selects turns (default all)."""
    w = per_turn["w"] if rows is None else per_turn["w"][rows]
    out = {}
    for name, values in per_turn.items():
        if name == "w":
            continue
        v = values if rows is None else values[rows]
        base, grouping = name.split("(", 1)
        out[name] = float(v.mean())
        out[f"{base}+w({grouping}"] = float((w * v).sum() / w.sum())
    return out


def breakdown_run_scores(
    labels, estimates, gold_counts, dialogues: Sequence[str], threshold: float = 0.0
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Every breakdown metric (``BREAKDOWN_METRICS``) pooled over the turns, and per dialogue.

    ``labels``: predicted label index per turn (0 O, 1 T, 2 X); ``estimates``: turns x 3
    probabilities; ``gold_counts``: turns x 3 label counts; ``dialogues``: each turn's dialogue id.
    Pooled over all turns, these are the DBDC3 evaluation script's Accuracy, Precision, Recall and
    F-measure (X) and (T+X), JS divergence and mean squared error, with Table 1's other metrics.
    """
    per_turn = breakdown_distribution_metrics(estimates, gold_counts)

    def metrics(rows=None) -> dict[str, float]:
        merged = classification_metrics(labels, gold_counts, threshold, rows) | pool_breakdown(per_turn, rows)
        return {name: merged[name] for name in BREAKDOWN_METRICS}

    rows_of: dict[str, list[int]] = {}
    for row, did in enumerate(dialogues):
        rows_of.setdefault(did, []).append(row)
    return metrics(), {did: metrics(np.array(rows)) for did, rows in rows_of.items()}


def dbdc_run_scores(run: DBDCRun, gold: DBDCGold, threshold: float = 0.0) -> tuple[dict, dict[str, dict[str, float]]]:
    """Score a DBDC run read by ``scoring.run_files.read_dbdc_run`` against ``gold``.

    Returns (scores, per dialogue): ``scores["breakdown"]`` holds every metric pooled over the
    annotated system turns; ``n_dialogues``, ``n_turns``, ``threshold``, and ``notes`` (what the
    reader ignored) describe the scoring; ``coverage`` the gold's dialogues and annotated turns it covers
    (``run_coverage``).
    """
    gold_counts = np.array([gold.counts[(d, t)] for d, t in zip(run.dialogue, run.turn.tolist())], dtype=float)
    overall, per_dialogue = breakdown_run_scores(run.label, run.p, gold_counts, run.dialogue, threshold)
    scores = {
        "breakdown": overall,
        "n_dialogues": len(per_dialogue),
        "n_turns": len(run.dialogue),
        "threshold": threshold,
        "notes": run.notes,
        "coverage": run_coverage(
            run.dialogue,
            gold.turns,
            covered_turns=len(run.dialogue),
            gold_turns=sum(len(turns) for turns in gold.turns.values()),
        ),
    }
    return scores, per_dialogue
