"""Scoring DBDC ``*.labels.json`` files against a breakdown project's gold distributions.

Every metric of Tsunomori et al. (2020), Table 1, with the precision and recall behind the
F-measures, pooled over the annotated system turns as the DBDC3 evaluation script reports them,
and per dialogue (``scoring.runs.dbdc_run_scores``). The annotated turns are the units the
preset asks about (``annotator.units``) that have gold labels; labels of other turns are
ignored and the scores' ``notes`` say so.
"""

from __future__ import annotations

from annotator.models import Project
from evaluation.selectors.project_gold import breakdown_gold
from evaluation.services.gold_cache import gold_arrays
from scoring.run_files import read_dbdc_run
from scoring.runs import dbdc_run_scores


def dbdc_run_score(
    *, project: Project, fingerprint: str, files: list[tuple[str, bytes]], strict: bool, threshold: float
):
    gold = breakdown_gold(project, gold_arrays(project=project, fingerprint=fingerprint))
    run = read_dbdc_run(files, gold_turns=gold.turns, dialogue_turns=gold.dialogue_turns, strict=strict)
    return dbdc_run_scores(run, gold, threshold)
