"""The statistics a save keeps current: additive state updated by every change of what counts.

Design: ``schedule.md`` ("Incremental statistics"). Per unit and criterion the label counts
(``LiveUnitCounts``); per criterion, grouped by a unit's number of labels, the integer sums that
Fleiss' and Randolph's kappa and Krippendorff's alpha are made of (``LiveAgreementTerm``,
``scoring.agreement.sums``); per annotator the items and judgements that count. A submission adds
its item's judgements, a reopening takes them away (``live_state_apply``, in the save's transaction,
one row lock per unit touched). A change of the population (an exclusion, quality items, the source)
or an import marks the state stale (``live_state_stale``) and asks the workers to rebuild it
(``live_rebuild``); until that rebuild commits the dashboard reads the figures as they were, and says
so (``live_state_read``). The dashboard reads ``live_figures``: O(categories^2) per criterion whatever the
project's size, and never rebuilds in the request.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Case, F, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotator.models import Assignment, Criterion, Judgement, Project, SourceFilter
from annotator.selectors.population import population_of
from annotator.selectors.structure import dialogue_shape, project_criteria
from annotator.units import UnitRule, required_units
from config.enqueue import task_send
from evaluation.models import LiveAgreementTerm, LiveAnnotatorCount, LiveState, LiveTouchedDialogue, LiveUnitCounts
from evaluation.services.scale_numbers import alpha_levels, numeric_values
from scoring.agreement.sums import coefficients, distribution, unit_terms

log = logging.getLogger(__name__)


def _scale(criterion: Criterion) -> list[str]:
    return list(dict.fromkeys(criterion.allowed_values()))


@dataclass(frozen=True)
class _Population:
    """Whose judgements the state was built for (``LiveState``), as a save reads it, and whether the state was
    ever built, which generation of unit counts is its, and whether a rebuild is reading the judgements."""

    source: str
    excluded: frozenset[int]
    quality_dialogues: frozenset[int]
    built: bool = True
    generation: int = 0
    rebuilding: bool = False


def _state_shared(project_id: int) -> _Population | None:
    """The project's state, locked against a rebuild's switch (shared: saves do not wait for each other). Plain
    SQL: the ORM's compilation of the same query would cost more CPU than the rest of the update."""
    lock = " FOR SHARE" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT source, excluded, quality_dialogues, built_at IS NOT NULL, generation, rebuilding_since IS NOT NULL"
            f" FROM {LiveState._meta.db_table} WHERE project_id = %s{lock}",
            [project_id],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    excluded, quality = (json.loads(x) if isinstance(x, str) else x for x in row[1:3])
    return _Population(
        row[0], frozenset(excluded or ()), frozenset(quality or ()), bool(row[3]), int(row[4]), bool(row[5])
    )


def _touched(project_id: int, dialogue_id: int) -> None:
    """Note that a save changed the dialogue while a rebuild reads the judgements (``live_rebuild``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {LiveTouchedDialogue._meta.db_table} (project_id, dialogue_id) VALUES (%s, %s) "
            "ON CONFLICT (project_id, dialogue_id) DO NOTHING",
            [project_id, dialogue_id],
        )


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
    if state is None:
        return  # no state yet (the first read asks for one)
    if state.rebuilding:  # whether it counts or not: the rebuild reads the population it finds
        _touched(assignment.dialogue.project_id, assignment.dialogue_id)
    if not state.built or not _counts(state, assignment):
        return  # nothing to keep yet (the rebuild writes it all), or judgements that do not count
    criteria = {c.pk: c for c in project_criteria(assignment.dialogue.project_id).values()}
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
        if criterion.applies_to != UnitRule.EVERY:
            if criterion_id not in asked:
                shape = dialogue_shape(assignment.dialogue_id)
                asked[criterion_id] = set(required_units(criterion, shape))
            if unit not in asked[criterion_id]:
                continue  # not a unit the criterion asks about: not gold data (``judgement_arrays``)
        if value == criterion.not_applicable_value:
            continue  # an answer, not a value: no part of the gold data (``judgement_arrays``)
        given[(criterion_id, unit)] = value
    scales = {pk: _scale(c) for pk, c in criteria.items()}
    table = LiveUnitCounts._meta.db_table
    keys = sorted(given)
    deltas: dict = defaultdict(int)
    if keys:
        empty = {pk: ",".join(["0"] * len(scale)) for pk, scale in scales.items()}
        rows = ", ".join(["(%s, %s, %s, %s, %s)"] * len(keys))
        g = state.generation
        params = [x for c, u in keys for x in (c, assignment.dialogue_id, u, empty[c], g)]
        where = " OR ".join(["(criterion_id = %s AND unit = %s)"] * len(keys))
        lock = " FOR UPDATE" if connection.vendor == "postgresql" else ""
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (criterion_id, dialogue_id, unit, counts, generation) VALUES {rows} "
                "ON CONFLICT (criterion_id, dialogue_id, unit, generation) DO NOTHING",
                params,
            )
            cursor.execute(
                f"SELECT id, criterion_id, unit, counts FROM {table} WHERE dialogue_id = %s AND generation = %s "
                f"AND ({where}) ORDER BY criterion_id, unit{lock}",
                [assignment.dialogue_id, g, *[x for key in keys for x in key]],
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
    """``live_state_apply``, marking the state stale when it is found inconsistent (logged)."""
    try:
        live_state_apply(assignment=assignment, sign=sign)  # raises before it changes any count
    except _Inconsistent as exc:
        log.warning("live statistics of project %s inconsistent: %s", assignment.dialogue.project_id, exc)
        live_state_stale(project_id=assignment.dialogue.project_id, reason="inconsistent")


#: Why the figures are being brought up to date (``LiveState.stale_because``), as the dashboard says it.
STALE_REASONS = {
    "first": _("the live figures are being prepared for the first time"),
    "exclusion": _("an annotator was excluded"),
    "inclusion": _("an excluded annotator was counted again"),
    "quality_items": _("control or training items changed"),
    "source": _("the source of the judgements that count changed"),
    "population": _("whose judgements count changed"),
    "import": _("an import added judgements"),
    "import_removed": _("an import was removed"),
    "inconsistent": _("a save found the figures inconsistent"),
    "differed": _("the figures differed from the full recomputation"),
}


def live_state_stale(*, project_id: int, reason: str) -> None:
    """Mark the project's state stale because of a structural change (``reason``: a key of ``STALE_REASONS``)
    and ask the workers to rebuild it once the caller's transaction commits. Its figures stay readable as they
    were; the first change not yet included gives the time the dashboard shows."""
    assert reason in STALE_REASONS, reason
    now = timezone.now()
    marked = LiveState.objects.filter(project_id=project_id).update(
        changes=F("changes") + 1,
        stale_because=reason,
        stale_since=Coalesce(F("stale_since"), Value(now)),
        pending_since=Case(
            When(rebuilding_since__isnull=False, then=Coalesce(F("pending_since"), Value(now))),
            default=F("pending_since"),
        ),
    )
    if marked:
        log.info("live statistics of project %s stale: %s", project_id, reason)
        live_state_rebuild_request_on_commit(project_id=project_id)


def live_state_rebuild_request(*, project_id: int) -> bool:
    """Ask the workers to rebuild the state; True if sent."""
    return task_send("evaluation.tasks.rebuild_live_statistics", project_id, project_id=project_id)


def live_state_rebuild_request_on_commit(*, project_id: int) -> None:
    transaction.on_commit(lambda: live_state_rebuild_request(project_id=project_id))


def rebuild_running(state: LiveState, now=None) -> bool:
    """Whether a rebuild of ``state`` is under way: not when it began longer ago than its task may run (its hard
    time limit). A rebuild whose worker was lost before is let go by the jobs' sweep
    (``evaluation.services.jobs.live_rebuild_job_lost``)."""
    if state.rebuilding_since is None:
        return False
    limit = settings.TASK_TIME_LIMITS["evaluation.tasks.rebuild_live_statistics"][1]
    return ((now or timezone.now()) - state.rebuilding_since).total_seconds() < limit


ASK_AGAIN_SECONDS = 30  # a stale state no rebuild works on is asked for again at most this often


def _ask_again(project_id: int) -> None:
    """Ask again for the rebuild of a stale state no rebuild works on (its task lost with a worker or a
    broker), at most every ``ASK_AGAIN_SECONDS`` whatever the number of pages asking (the cache's atomic add)."""
    if cache.add(f"live-rebuild-asked-{project_id}", True, ASK_AGAIN_SECONDS):
        live_state_rebuild_request_on_commit(project_id=project_id)


def _population_changed(state: LiveState, project: Project) -> bool:
    population = population_of(project)
    built = (state.source, tuple(state.excluded), tuple(state.quality_dialogues))
    return built != (population.source, population.excluded, population.quality_dialogues)


def live_state_read(project: Project) -> LiveState:
    """The project's state as the dashboard reads it: never rebuilt here. A project without one gets an empty
    state marked stale; a population found changed that no change marked (an edit in the admin) marks it; a
    stale state that no rebuild is working on is asked for again (a task lost with a worker or a broker)."""
    state = LiveState.objects.filter(project=project).first()
    if state is None:
        state, created = LiveState.objects.get_or_create(
            project=project,
            defaults={"source": "", "built_at": None, "stale_since": timezone.now(), "stale_because": "first"},
        )
        if created:
            live_state_rebuild_request_on_commit(project_id=project.pk)
        return state
    if state.built_at is not None and state.stale_since is None and _population_changed(state, project):
        live_state_stale(project_id=project.pk, reason="population")
        state.refresh_from_db()
    elif state.stale_since is not None and not rebuild_running(state):
        _ask_again(project.pk)
    return state


def live_state_peek(project: Project) -> LiveState:
    """The project's state as ``live_state_read`` would find it, with nothing written or asked for: for a process
    that would not live to see a rebuild through (a command). A project without one gets an unsaved state never
    built; a population found changed that no change marked shows stale (not saved)."""
    state = LiveState.objects.filter(project=project).first()
    if state is None:
        return LiveState(project=project, source="", built_at=None, stale_because="first")
    if state.built_at is not None and state.stale_since is None and _population_changed(state, project):
        state.stale_since, state.stale_because = timezone.now(), "population"
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


def live_figures(project: Project, state: LiveState | None = None) -> dict:
    """Per criterion key: the gold distribution's label totals and the kappas and alpha, from the state as it is
    (stale or not: ``live_state_read`` says which); ``state`` the project's, read by the caller."""
    state = state or live_state_read(project)
    criteria = list(project.criteria.order_by("position", "id"))
    groups: dict[int, dict[int, dict]] = defaultdict(lambda: defaultdict(dict))
    for criterion_id, m, first, second, n in LiveAgreementTerm.objects.filter(criterion__in=criteria).values_list(
        "criterion_id", "raters", "first", "second", "n"
    ):
        groups[criterion_id][m][(first, second)] = n
    out = {}
    for criterion in criteria:
        scale = _scale(criterion)
        figures = coefficients(
            groups[criterion.pk], len(scale), levels=alpha_levels(criterion.level), values=numeric_values(scale)
        )
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


#: The figures of a criterion's agreement entry the live state keeps current with every save (``live_figures``), and
#: that the scheduled recomputation therefore neither computes nor stores (``project_statistics(running=False)``);
#: with them the label counts (``value_counts``) and each criterion's mean gold distribution. Everything else of
#: the payload (intervals, the data behind them, shares agreeing, per-speaker and merged blocks, disputes, kappa
#: matrices, models, significance) is the scheduled recomputation's. Design: ``docs/statistics-pipeline.md``.
RUNNING_FIGURES = ("n_units", "fleiss_kappa", "randolph_kappa", "krippendorff_alpha")


def statistics_with_running_figures(
    project: Project, payload: dict, *, state: LiveState | None = None
) -> tuple[dict, dict]:
    """The stored payload with the running figures (``RUNNING_FIGURES``, the label counts and the mean gold
    distributions) read from the live state, current to the last save: what the dashboard, the stats API,
    ``stats --json``, the study report and the exports answer. ``state``: the project's, read by the caller
    (``live_state_read``, or ``live_state_peek`` in a command). Returns (payload, what the page says).

    Never rebuilds: while the state is stale the figures are those it holds, and what the page says names the
    change and its time (``live_status``). A state never built yet (the scheduled recomputation builds it first,
    so only a project read before any recomputation, or restored from an archive) gives the payload's own
    figures when it has them (one stored before this split), else none (shown as not computed)."""
    state = state or live_state_read(project)
    built = state.built_at is not None
    live = live_figures(project, state)["criteria"] if built else {}
    levels = {key: alpha_levels(level) for key, level in project.criteria.values_list("key", "level")}
    out = dict(payload)
    out["criteria"] = {}
    for key, entry in payload.get("criteria", {}).items():
        figures = live.get(key)
        if figures is None:  # the payload's own figures (stored before the split), or none yet
            running = {name: entry.get(name) for name in RUNNING_FIGURES}
            running["krippendorff_alpha"] = running["krippendorff_alpha"] or dict.fromkeys(
                levels.get(key, ("nominal",))
            )
        else:
            running = {
                "n_units": figures["n_units"],
                "fleiss_kappa": _number(figures["fleiss_kappa"]),
                "randolph_kappa": _number(figures["randolph_kappa"]),
                "krippendorff_alpha": {level: _number(v) for level, v in figures["krippendorff_alpha"].items()},
            }
        out["criteria"][key] = {**running, **{k: v for k, v in entry.items() if k not in RUNNING_FIGURES}}
    if built:
        out["value_counts"] = {key: f["distribution"] for key, f in live.items() if f["n_labels"]}
    else:
        out["value_counts"] = dict(payload.get("value_counts", {}))
    out["gold"] = {}
    for key, entry in payload.get("gold", {}).items():
        figures = live.get(key)
        mean = entry.get("mean_distribution")
        if figures is not None and figures["mean_distribution"] is not None:
            mean = dict(zip(figures["distribution"], figures["mean_distribution"]))
        rest = {k: v for k, v in entry.items() if k != "mean_distribution"}
        out["gold"][key] = {"mean_distribution": mean, **rest} if mean is not None else rest
    if not built:
        return out, live_status(state)
    return out, {**live_status(state), "n_labels": sum(f["n_labels"] for f in live.values())}


def live_status(state: LiveState) -> dict:
    """What the dashboard says of the live figures: when they were built, and whether (since when, why) they
    are being brought up to date."""
    return {
        "built_at": state.built_at,
        "stale_since": state.stale_since,
        "stale_reason": STALE_REASONS.get(state.stale_because, STALE_REASONS["population"]),
        "rebuild_seconds": state.rebuild_seconds,
    }
