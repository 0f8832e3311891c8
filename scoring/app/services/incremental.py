"""The statistics a save keeps current: additive state updated by every change of what counts.

Design: ``schedule.md`` ("Incremental statistics"). Per unit and criterion the label counts
(``LiveUnitCounts``); per criterion, grouped by a unit's number of labels, the integer sums that
Fleiss' and Randolph's kappa and Krippendorff's alpha are made of (``LiveAgreementTerm``,
``scoring.agreement.sums``); per annotator the items and judgements that count. A submission adds
its item's judgements, a reopening takes them away (``live_state_apply``, in the save's transaction,
one row lock per unit touched); a change of the population (an exclusion, quality items, the source)
or an import rebuilds the project's state (``live_state_rebuild``, logged). The dashboard reads
``live_figures``: O(categories^2) per criterion whatever the project's size.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from annotator.models import Assignment, Criterion, Judgement, Project, SourceFilter
from annotator.selectors.judgement_arrays import project_judgements
from annotator.selectors.population import gold_assignments, gold_judgements, population_of
from annotator.selectors.structure import dialogue_shape, project_criteria
from annotator.units import UnitRule, required_units, unit_rule
from scoring.agreement.sums import coefficients, distribution, unit_terms
from scoring.app.models import GoldCache, LiveAgreementTerm, LiveAnnotatorCount, LiveState, LiveUnitCounts
from scoring.app.selectors.fingerprint import judgements_fingerprint
from scoring.app.services.gold_cache import gold_arrays
from scoring.app.services.statistics import numeric_values

log = logging.getLogger(__name__)


def _scale(criterion: Criterion) -> list[str]:
    return list(dict.fromkeys(criterion.allowed_values()))


@dataclass(frozen=True)
class _Population:
    """Whose judgements the state was built for (``LiveState``), as a save reads it."""

    source: str
    excluded: frozenset[int]
    quality_dialogues: frozenset[int]


def _state_shared(project_id: int) -> _Population | None:
    """The project's state, locked against a rebuild (shared: saves do not wait for each other). Plain SQL:
    the ORM's compilation of the same query would cost more CPU than the rest of the update."""
    lock = " FOR SHARE" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT source, excluded, quality_dialogues FROM {LiveState._meta.db_table} WHERE project_id = %s{lock}",
            [project_id],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    excluded, quality = (json.loads(x) if isinstance(x, str) else x for x in row[1:])
    return _Population(row[0], frozenset(excluded or ()), frozenset(quality or ()))


def _counts(state: _Population, assignment: Assignment) -> bool:
    """Whether the assignment's judgements are in the population the state was built for."""
    if assignment.dialogue_id in state.quality_dialogues or assignment.annotator_id in state.excluded:
        return False
    if state.source == SourceFilter.IMPORTED:
        return assignment.imported
    return not assignment.imported if state.source == SourceFilter.OWN else True


def _upsert_terms(deltas: dict[tuple[int, int, int, int], int]) -> None:
    rows = sorted((key, n) for key, n in deltas.items() if n)
    if not rows:
        return
    table = LiveAgreementTerm._meta.db_table
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(rows))
    params = [x for (c, m, f, s), n in rows for x in (c, m, f, s, n)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (criterion_id, raters, first, second, n) VALUES {values} "
            f"ON CONFLICT (criterion_id, raters, first, second) DO UPDATE SET n = {table}.n + excluded.n",
            params,
        )


def _add_terms(deltas: dict, criterion_id: int, counts: list[int], sign: int) -> None:
    m = sum(counts)
    for (first, second), n in unit_terms(counts).items():
        deltas[(criterion_id, m, first, second)] += sign * n


def live_state_apply(*, assignment: Assignment, sign: int) -> None:
    """Add (``sign`` +1: submitted) or take away (-1: reopened) the assignment's judgements in the state.

    Called inside the save's transaction after its judgements are written (or before a reopening): the
    units' rows are locked in one order (criterion, dialogue, unit), then the sums are upserted in one
    statement, so concurrent saves of one unit leave exact counts and never deadlock on the state.
    """
    state = _state_shared(assignment.dialogue.project_id)
    if state is None or not _counts(state, assignment):
        return  # no state yet (the first read builds it), or judgements that do not count
    criteria = {c.pk: c for c in project_criteria(assignment.dialogue.project_id).values()}
    rule = unit_rule(assignment.dialogue.project.preset)
    given: dict[tuple[int, int], str] = {}
    asked: dict[int, set[int]] = {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT criterion_id, unit, value FROM {Judgement._meta.db_table} WHERE assignment_id = %s",
            [assignment.pk],
        )
        rows = cursor.fetchall()
    for criterion_id, unit, value in rows:
        criterion = criteria.get(criterion_id)
        if criterion is None:
            continue
        if rule != UnitRule.EVERY:
            if criterion_id not in asked:
                shape = dialogue_shape(assignment.dialogue_id)
                asked[criterion_id] = set(required_units(criterion, shape, rule=rule))
            if unit not in asked[criterion_id]:
                continue  # not a unit the criterion asks about: not gold data (``judgement_arrays``)
        given[(criterion_id, unit)] = value
    scales = {pk: _scale(c) for pk, c in criteria.items()}
    table = LiveUnitCounts._meta.db_table
    keys = sorted(given)
    deltas: dict = defaultdict(int)
    if keys:
        empty = {pk: ",".join(["0"] * len(scale)) for pk, scale in scales.items()}
        rows = ", ".join(["(%s, %s, %s, %s)"] * len(keys))
        params = [x for c, u in keys for x in (c, assignment.dialogue_id, u, empty[c])]
        where = " OR ".join(["(criterion_id = %s AND unit = %s)"] * len(keys))
        lock = " FOR UPDATE" if connection.vendor == "postgresql" else ""
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (criterion_id, dialogue_id, unit, counts) VALUES {rows} "
                "ON CONFLICT (criterion_id, dialogue_id, unit) DO NOTHING",
                params,
            )
            cursor.execute(
                f"SELECT id, criterion_id, unit, counts FROM {table} WHERE dialogue_id = %s AND ({where}) "
                f"ORDER BY criterion_id, unit{lock}",
                [assignment.dialogue_id, *[x for key in keys for x in key]],
            )
            found = cursor.fetchall()
            updates = []
            for row_id, criterion_id, unit, text in found:
                old = [int(x) for x in text.split(",")]
                new = list(old)
                index = scales[criterion_id].index(given[(criterion_id, unit)])
                new[index] += sign
                if min(new) < 0:  # the state missed this judgement: rebuild rather than go negative
                    raise _Inconsistent(f"unit {unit} of criterion {criterion_id} would count below zero")
                _add_terms(deltas, criterion_id, old, -1)
                _add_terms(deltas, criterion_id, new, +1)
                updates.append((row_id, ",".join(map(str, new))))
            if updates:  # one statement for every unit
                cases = " ".join(["WHEN %s THEN %s"] * len(updates))
                marks = ", ".join(["%s"] * len(updates))
                cursor.execute(
                    f"UPDATE {table} SET counts = CASE id {cases} END WHERE id IN ({marks})",
                    [x for row_id, text in updates for x in (row_id, text)] + [row_id for row_id, _t in updates],
                )
    _upsert_terms(deltas)
    annotators = LiveAnnotatorCount._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {annotators} (project_id, annotator_id, items, judgements) VALUES (%s, %s, %s, %s) "
            f"ON CONFLICT (project_id, annotator_id) DO UPDATE SET items = {annotators}.items + excluded.items, "
            f"judgements = {annotators}.judgements + excluded.judgements",
            [assignment.dialogue.project_id, assignment.annotator_id, sign, sign * len(keys)],
        )


class _Inconsistent(Exception):
    pass


def live_state_change(*, assignment: Assignment, sign: int) -> None:
    """``live_state_apply``, falling back to a rebuild when the state is found inconsistent (logged)."""
    try:
        live_state_apply(assignment=assignment, sign=sign)  # raises before it changes any count
    except _Inconsistent as exc:
        live_state_invalidate(project_id=assignment.dialogue.project_id, reason=str(exc))


def live_state_invalidate(*, project_id: int, reason: str) -> None:
    """Drop the project's state (an import added or removed judgements): the next read rebuilds it."""
    if LiveState.objects.filter(project_id=project_id).delete()[0]:
        log.info("live statistics of project %s dropped: %s", project_id, reason)


@transaction.atomic
def live_state_rebuild(*, project: Project, reason: str) -> LiveState:
    """Build the project's state from its judgements (what the full recomputation reads), logged with why."""
    now = timezone.now()
    state, _ = LiveState.objects.get_or_create(project=project, defaults={"source": "", "built_at": now})
    state = LiveState.objects.select_for_update().get(pk=state.pk)  # saves wait (they hold it shared)
    population = population_of(project)
    criteria = list(project.criteria.all())
    LiveUnitCounts.objects.filter(criterion__in=criteria).delete()
    LiveAgreementTerm.objects.filter(criterion__in=criteria).delete()
    LiveAnnotatorCount.objects.filter(project=project).delete()
    deltas: dict = defaultdict(int)
    units = []
    for data in project_judgements(project, long_form=False).values():
        counts = data.counts()
        pk = data.criterion.pk
        for u in np.flatnonzero(counts.sum(axis=1)).tolist():
            row = counts[u].tolist()
            units.append(
                LiveUnitCounts(
                    criterion_id=pk,
                    dialogue_id=int(data.unit_dialogue[u]),
                    unit=int(data.unit_index[u]),
                    counts=",".join(map(str, row)),
                )
            )
        _group_terms(deltas, pk, counts)
    LiveUnitCounts.objects.bulk_create(units, batch_size=5000)
    LiveAgreementTerm.objects.bulk_create(
        [
            LiveAgreementTerm(criterion_id=c, raters=m, first=f, second=s, n=n)
            for (c, m, f, s), n in deltas.items()
            if n
        ],
        batch_size=5000,
    )
    items = dict(gold_assignments(project, population).values_list("annotator_id").annotate(n=Count("pk")).order_by())
    judged = dict(
        gold_judgements(project, population).values_list("assignment__annotator_id").annotate(n=Count("pk")).order_by()
    )
    LiveAnnotatorCount.objects.bulk_create(
        [
            LiveAnnotatorCount(project=project, annotator_id=a, items=items.get(a, 0), judgements=judged.get(a, 0))
            for a in set(items) | set(judged)
        ]
    )
    state.source = population.source
    state.excluded = list(population.excluded)
    state.quality_dialogues = list(population.quality_dialogues)
    state.built_at = now
    state.rebuilt_because = reason[:200]
    state.save()
    log.info("live statistics of project %s rebuilt: %s", project.pk, reason)
    return state


def _group_terms(deltas: dict, criterion_id: int, counts: np.ndarray) -> None:
    """Every unit's terms of ``counts`` summed per group of units with the same number of labels."""
    m = counts.sum(axis=1)
    for raters in np.unique(m[m > 0]).tolist():
        group = counts[m == raters].astype(np.int64)
        deltas[(criterion_id, raters, -1, -1)] += len(group)
        for c, n in enumerate(group.sum(axis=0).tolist()):
            deltas[(criterion_id, raters, c, -1)] += n
        pairs = group.T @ group - np.diag(group.sum(axis=0))
        for (c, k), n in np.ndenumerate(pairs):
            if n:
                deltas[(criterion_id, raters, c, k)] += int(n)


@transaction.atomic
def live_state_verify(*, project: Project) -> bool:
    """Check the state against the counts the full recomputation just stored (the reference); rebuild it when
    they differ (logged as a warning: a change that bypassed the saves, such as an edit in the admin).

    Runs with the state locked, so that no save is half applied; only when the stored gold counts are those
    of the judgements now (else a later recomputation checks). True when the state was found exact.
    """
    state = LiveState.objects.select_for_update().filter(project=project).first()
    if state is None:
        return True
    fingerprint = judgements_fingerprint(project)
    if not GoldCache.objects.filter(project=project, fingerprint=fingerprint).exists():
        return True
    expected: dict = defaultdict(int)
    for data in gold_arrays(project=project).criteria.values():
        _group_terms(expected, data.criterion.pk, data.unit_counts)
    stored = {
        (c, m, f, s): n
        for c, m, f, s, n in LiveAgreementTerm.objects.filter(criterion__project=project).values_list(
            "criterion_id", "raters", "first", "second", "n"
        )
        if n
    }
    if stored == {key: n for key, n in expected.items() if n}:
        return True
    log.warning("live statistics of project %s differ from the full recomputation: rebuilt", project.pk)
    live_state_rebuild(project=project, reason="differed from the full recomputation")
    return False


def live_state_current(project: Project) -> LiveState:
    """The project's state, rebuilt first when missing or built for another population (logged)."""
    state = LiveState.objects.filter(project=project).first()
    if state is None:
        return live_state_rebuild(project=project, reason="no state yet")
    population = population_of(project)
    built = (state.source, tuple(state.excluded), tuple(state.quality_dialogues))
    if built != (population.source, population.excluded, population.quality_dialogues):
        return live_state_rebuild(project=project, reason="the population changed (exclusions, quality items, source)")
    return state


def live_figures(project: Project) -> dict:
    """Per criterion key: the gold distribution's label totals and the kappas and alpha, from the state."""
    state = live_state_current(project)
    criteria = list(project.criteria.order_by("position", "id"))
    groups: dict[int, dict[int, dict]] = defaultdict(lambda: defaultdict(dict))
    for criterion_id, m, first, second, n in LiveAgreementTerm.objects.filter(criterion__in=criteria).values_list(
        "criterion_id", "raters", "first", "second", "n"
    ):
        groups[criterion_id][m][(first, second)] = n
    out = {}
    for criterion in criteria:
        scale = _scale(criterion)
        levels = ("nominal",) if criterion.level == "nominal" else ("nominal", "ordinal", "interval")
        figures = coefficients(groups[criterion.pk], len(scale), levels=levels, values=numeric_values(scale))
        totals = distribution(groups[criterion.pk], len(scale))
        figures["distribution"] = dict(zip(scale, totals.tolist()))
        figures["n_labels"] = int(totals.sum())
        out[criterion.key] = figures
    annotators = LiveAnnotatorCount.objects.filter(project=project, items__gt=0)
    return {
        "built_at": state.built_at,
        "criteria": out,
        "annotators": dict(annotators.values_list("annotator__username", "judgements")),
    }


def _number(x):
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else x


def payload_with_live_figures(project: Project, payload: dict) -> tuple[dict, dict]:
    """The stored payload with its additive figures replaced by the state's, current to the last save: per
    criterion the units, Fleiss' and Randolph's kappa, alpha at the payload's levels, the label counts and
    the mean gold distribution. The rest (intervals, per-speaker and merged figures, kappa maps, models,
    significance) stays as the scheduled recomputation left it. Returns (payload, what the page says)."""
    live = live_figures(project)
    out = dict(payload)
    out["criteria"] = {key: dict(entry) for key, entry in payload.get("criteria", {}).items()}
    out["value_counts"] = dict(payload.get("value_counts", {}))
    out["gold"] = {key: dict(entry) for key, entry in payload.get("gold", {}).items()}
    for key, figures in live["criteria"].items():
        entry = out["criteria"].get(key)
        if entry is not None:
            entry["n_units"] = figures["n_units"]
            entry["fleiss_kappa"] = _number(figures["fleiss_kappa"])
            entry["randolph_kappa"] = _number(figures["randolph_kappa"])
            entry["krippendorff_alpha"] = {
                level: _number(figures["krippendorff_alpha"].get(level, value))
                for level, value in entry.get("krippendorff_alpha", {}).items()
            }
        if figures["n_labels"]:
            out["value_counts"][key] = figures["distribution"]
        if key in out["gold"] and figures["mean_distribution"] is not None:
            out["gold"][key]["mean_distribution"] = dict(zip(figures["distribution"], figures["mean_distribution"]))
    return out, {"built_at": live["built_at"], "n_labels": sum(f["n_labels"] for f in live["criteria"].values())}
