"""Scoring an STC-3/DialEval submission against a project's gold distributions.

Dialogue quality: RSNOD and NMD per dialogue and criterion, the mean over dialogues; nugget
detection: RNSS and JSD per turn, per dialogue the customer/helpdesk weighted mean (alpha), the
mean over dialogues (Sakai 2017, Eqs. 11-13); DialEval's -log2 forms beside them. The project's gold
is arranged for the library's reader and scorer (``read_stc3_run``, ``scoring.runs.stc3_run_scores``), which
``python -m scoring stc3`` calls on the gold file's counts instead.
"""

from __future__ import annotations

from annotator.models import Project, Unit
from evaluation.selectors.project_gold import (
    criteria_by_unit,
    dialogue_counts,
    external_ids,
    turn_counts,
    turn_gold,
)
from evaluation.services.gold_cache import gold_arrays
from scoring.errors import N_, InputError
from scoring.run_files import read_stc3_run
from scoring.runs import stc3_run_scores


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
    nugget_gold = None
    if nugget:
        nugget_gold = tuple(
            turn_counts(turns, run.dialogues, rows.dialogue, rows.turn, speaker)
            for rows, speaker in ((run.customer, "customer"), (run.helpdesk, "helpdesk"))
        )
    return stc3_run_scores(
        run, source=name, quality_gold=gold_quality, nugget_gold=nugget_gold, alpha=alpha, gold_dialogues=gold_ids
    )
