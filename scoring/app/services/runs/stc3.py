"""Scoring an STC-3/DialEval submission against a project's gold distributions.

Dialogue quality: RSNOD and NMD per dialogue and criterion, the mean over dialogues; nugget
detection: RNSS and JSD per turn, per dialogue the customer/helpdesk weighted mean (alpha), the
mean over dialogues (Sakai 2017, Eqs. 11-13); DialEval's -log2 forms beside them.
"""

from __future__ import annotations

import numpy as np

from annotator.models import Project, Unit
from scoring.app.selectors.project_gold import (
    criteria_by_unit,
    dialogue_counts,
    external_ids,
    turn_counts,
    turn_gold,
)
from scoring.app.services.gold_cache import gold_arrays
from scoring.errors import N_, InputError
from scoring.run_files import read_stc3_run
from scoring.runs import neglog2, nugget_dialogue_scores, quality_scores


def _mean(values: np.ndarray) -> float:
    return float(np.nanmean(values)) if len(values) else float("nan")


def stc3_run_score(*, project: Project, fingerprint: str, files: list[tuple[str, bytes]], alpha: float, strict: bool):
    if len(files) != 1:
        raise InputError("run", N_("an STC-3 run is one JSON file, got %(len)s"), params={"len": len(files)})
    name, raw = files[0]
    external = external_ids(project)
    gold = gold_arrays(project=project, fingerprint=fingerprint)
    by_unit = criteria_by_unit(gold)
    quality = {d.criterion.key: d for d in by_unit.get(Unit.DIALOGUE, [])}
    nugget = by_unit.get(Unit.TURN, [None])[0]
    gold_quality = {k: dialogue_counts(d, external) for k, d in quality.items()}
    turns = turn_gold(nugget, external, gold) if nugget else None
    gold_ids = set().union(*(g.keys() for g in gold_quality.values())) if gold_quality else set()
    if turns:
        gold_ids |= turns.dialogues
    gold_turns = {d: turns.speakers[d] for d in gold_ids} if turns else {d: [] for d in gold_ids}
    scale = next(iter(quality.values())).values if quality else ["-2", "-1", "0", "1", "2"]
    run = read_stc3_run(
        raw,
        source=name,
        gold_turns=gold_turns,
        quality_scale=scale,
        quality_keys=list(quality),
        customer_labels=[nugget.values[i] for i in nugget.scale("customer")] if nugget else [],
        helpdesk_labels=[nugget.values[i] for i in nugget.scale("helpdesk")] if nugget else [],
        strict=strict,
    )
    scores: dict = {"quality": {}, "n_dialogues": len(run.dialogues)}
    per_dialogue: dict[str, dict] = {d: {} for d in run.dialogues}
    for key, (positions, estimates) in run.quality.items():
        if len(positions) == 0:
            continue
        ids = [run.dialogues[i] for i in positions]
        missing = [d for d in ids if d not in gold_quality[key]]
        if missing:
            raise InputError(
                name,
                N_("has no gold %(key)s judgements"),
                record=missing[0],
                field=f"quality.{key}",
                params={"key": key},
            )
        gold = np.array([gold_quality[key][d] for d in ids])
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
    if nugget and (len(run.customer.turn) or len(run.helpdesk.turn)):

        def gold_rows(rows, speaker: str):
            return turn_counts(turns, run.dialogues, rows.dialogue, rows.turn, speaker)

        values = nugget_dialogue_scores(
            run.customer.p,
            gold_rows(run.customer, "customer"),
            run.customer.dialogue,
            run.helpdesk.p,
            gold_rows(run.helpdesk, "helpdesk"),
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
