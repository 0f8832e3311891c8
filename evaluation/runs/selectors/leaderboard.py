"""Reads for the leaderboard: every run with the preset's metrics, sorted and grouped, each stale run with
the reason, and the stored comparisons of the runs scored against the current gold (or why they could not
be computed)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils.translation import gettext, ngettext

from annotator.models import Project
from annotator.presets import LeaderboardColumn
from annotator.presets.of_project import project_scheme
from evaluation.models import Run, RunComparison, RunKind, RunStatus
from evaluation.runs.selectors.freshness import run_stale_reason, with_has_files
from evaluation.selectors.fingerprint import judgements_fingerprint

FEATURED, ALL = "main", "all"


@dataclass(frozen=True)
class LeaderboardRun:
    """One run as the leaderboard shows it: its state and its values of the shown metrics (``cells``)."""

    pk: int
    name: str
    status_label: str
    scored: bool
    rejected: bool
    reordering: bool  # the annotators' reorderings scored as a run (scored on the page, not by the workers)
    waiting_for_workers: bool  # pending, and not yet handed to the workers
    error: str
    notes: list[str]
    cells: list
    scores: dict
    stale_reason: str | None  # why the scores are not against the current gold; None when they are
    coverage: dict | None = None  # the gold the run covers (``scoring.runs.run_coverage``); None for runs scored before

    @property
    def partial(self) -> bool:
        """Scored on fewer dialogues (or annotated turns) than the gold has: marked, and ranked after the
        complete runs."""
        return bool(self.coverage) and not self.coverage.get("complete", True)

    @property
    def coverage_mark(self) -> str:
        """``partial: 3,699 / 3,700 dialogues`` (or annotated turns, where every dialogue is there)."""
        c = self.coverage or {}
        if c.get("n_missing", 0) == 0 and "turns" in c:
            return gettext("partial: %(covered)s / %(total)s turns") % {"covered": c["turns"], "total": c["gold_turns"]}
        return gettext("partial: %(covered)s / %(total)s dialogues") % {
            "covered": c.get("dialogues"),
            "total": c.get("gold_dialogues"),
        }

    @property
    def coverage_note(self) -> str:
        c = self.coverage or {}
        if c.get("n_missing", 0) == 0:
            return gettext(
                "Scored on %(covered)s of the gold's %(total)s annotated turns. Ranked after the runs that cover "
                "them all."
            ) % {"covered": c.get("turns"), "total": c.get("gold_turns")}
        return ngettext(
            "Scored on %(covered)s of the gold's %(total)s dialogues: %(n)s is missing (first: %(first)s). "
            "Ranked after the runs that cover them all.",
            "Scored on %(covered)s of the gold's %(total)s dialogues: %(n)s are missing (first: %(first)s). "
            "Ranked after the runs that cover them all.",
            c["n_missing"],
        ) % {"covered": c["dialogues"], "total": c["gold_dialogues"], "n": c["n_missing"], "first": c["missing"][0]}


@dataclass(frozen=True)
class ColumnGroup:
    key: str  # the value of ``?group=``
    label: str
    size: int


def column_groups(columns: tuple[LeaderboardColumn, ...]) -> list[ColumnGroup]:
    """The chosen few (``featured``), each family of metrics, and all of them; just one when all are featured.
    Labelled in the active language (a family's name is marked for translation where the preset names it)."""
    if all(c.featured for c in columns):
        return [ColumnGroup(ALL, gettext("All metrics"), len(columns))]
    families = list(dict.fromkeys(c.group for c in columns))
    return (
        [ColumnGroup(FEATURED, gettext("Main metrics"), sum(c.featured for c in columns))]
        + [ColumnGroup(f, gettext(f), sum(c.group == f for c in columns)) for f in families]
        + [ColumnGroup(ALL, gettext("All metrics"), len(columns))]
    )


def leaderboard(
    *,
    project: Project,
    metric: str | None = None,
    group: str | None = None,
    sort: str | None = None,
    order: str | None = None,
) -> dict:
    """Runs with the preset's metrics: those of ``group`` shown (the main ones by default), sorted by the
    metric ``sort`` best first (``order="worst"`` reverses; runs without a value last), and the stored
    comparison of one metric."""
    spec = project_scheme(project)
    columns = spec.run_scheme.columns(list(project.criteria.all())) if spec.run_scheme else ()
    groups = column_groups(columns) if columns else []
    chosen_group = next((g for g in groups if g.key == group), groups[0] if groups else None)
    if chosen_group is None or chosen_group.key == ALL:
        shown = list(columns)
    elif chosen_group.key == FEATURED:
        shown = [c for c in columns if c.featured]
    else:
        shown = [c for c in columns if c.group == chosen_group.key]
    fingerprint = judgements_fingerprint(project)
    runs = [
        _row(run, shown, fingerprint)
        for run in with_has_files(Run.objects.filter(project=project))
        .defer("per_dialogue")
        .order_by("created_at", "pk")
    ]
    sort_column = next((c for c in columns if c.key == sort), None)
    order = "worst" if order == "worst" else "best"
    if sort_column is not None:
        runs = _sorted(runs, sort_column, best_first=order == "best")
    stored = list(RunComparison.objects.filter(project=project).order_by("metric"))
    comparisons = [c for c in stored if c.gold_fingerprint == fingerprint]  # older ones compared stale scores
    computed = [c for c in comparisons if not c.error]
    chosen = next((c for c in computed if c.metric == metric), computed[0] if computed else None)
    return {
        "runs": runs,
        "columns": shown,
        "groups": groups,
        "group": chosen_group,
        "sort": sort_column,
        "order": order,
        "run_scheme": spec.run_scheme,
        "comparisons": comparisons,
        "comparison": chosen,
        "comparisons_stale": bool(stored) and not comparisons,
        "scored": sum(r.scored and not r.reordering and r.stale_reason is None for r in runs),
        "stale": sum(r.stale_reason is not None for r in runs),
        "partial": sum(r.partial for r in runs),
    }


def _row(run: Run, shown: list[LeaderboardColumn], fingerprint: str) -> LeaderboardRun:
    return LeaderboardRun(
        pk=run.pk,
        name=run.name,
        status_label=run.get_status_display(),
        scored=run.status == RunStatus.SCORED,
        rejected=run.status == RunStatus.FAILED,
        reordering=run.kind == RunKind.REORDERING,
        waiting_for_workers=run.status == RunStatus.PENDING and not run.queued_at,
        error=run.error,
        notes=list((run.scores or {}).get("notes", [])),
        cells=[_lookup(run.scores, c.key) for c in shown],
        scores=run.scores or {},
        stale_reason=run_stale_reason(run, fingerprint),
        coverage=(run.scores or {}).get("coverage"),
    )


def _sorted(runs: list[LeaderboardRun], column: LeaderboardColumn, *, best_first: bool) -> list[Run]:
    """Runs by one metric, best (or worst) first by its direction; the runs that cover the whole gold first,
    those scored on part of it after them (each marked on the page), runs without a finite value last."""

    def value(run: LeaderboardRun) -> float | None:
        v = _lookup(run.scores, column.key)
        return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None

    have = [r for r in runs if value(r) is not None]
    missing = [r for r in runs if value(r) is None]
    ascending = column.lower_is_better == best_first
    ranked = sorted(have, key=value, reverse=not ascending)
    return [r for r in ranked if not r.partial] + [r for r in ranked if r.partial] + missing


def _lookup(scores: dict, dotted: str):
    node = scores
    for part in dotted.split(".", 1) if dotted.startswith("breakdown.") else dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node
