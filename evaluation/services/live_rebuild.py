"""Rebuilding a project's live statistics from its judgements in the background, without losing a save.

A structural change (an exclusion, quality items, the source, an import) marks the state stale and asks for
``live_state_rebuild`` (``incremental.live_state_stale``, the task ``rebuild_live_statistics``). The rebuild:

1. *claims* the state (its row locked for a moment: saves in flight finish first) and notes that it is reading;
   from then on every save also notes the dialogue it changed (``LiveTouchedDialogue``);
2. *reads* every judgement that counts (the long part, 9.5 s at STC-3's size) with no lock held, and writes the
   unit counts as a new generation of rows that no save reads yet; saves go on updating the current state;
3. *switches* under the state's row lock (saves wait, for the time this step takes only): reads the dialogues
   saves touched since the claim again, replaces their units' counts, writes the sums and the annotators'
   counters from the merged counts, and makes the new generation the state's. Old rows are deleted after.

So a save is either seen by the claim-time reading (it committed before the claim) or touched its dialogue and
is read again in step 3, where no save is in flight: the rebuilt state is exact, whatever the saves did
meanwhile. A structural change during the rebuild leaves the state stale and the rebuild runs again. Running it
twice is harmless: a run that finds the state fresh, or another run at work, does nothing.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from annotator.models import Project
from annotator.selectors.judgement_arrays import project_judgements
from annotator.selectors.population import Population, gold_assignments, gold_judgements, population_of
from evaluation.models import (
    GoldCache,
    LiveAgreementTerm,
    LiveAnnotatorCount,
    LiveState,
    LiveTouchedDialogue,
    LiveUnitCounts,
)
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.gold_cache import gold_arrays
from evaluation.services.incremental import _group_terms, live_state_stale, rebuild_running

log = logging.getLogger(__name__)

PASSES = 3  # rebuilds in a row when structural changes keep arriving; then the next request asks again


@dataclass
class _Criterion:
    """One criterion's units that have labels: their dialogue and index, and counts (units x scale values)."""

    dialogue: np.ndarray
    unit: np.ndarray
    counts: np.ndarray

    def without(self, dialogues: set[int]) -> _Criterion:
        keep = ~np.isin(self.dialogue, np.array(sorted(dialogues), dtype=np.int64))
        return _Criterion(self.dialogue[keep], self.unit[keep], self.counts[keep])

    def plus(self, other: _Criterion) -> _Criterion:
        return _Criterion(
            np.concatenate([self.dialogue, other.dialogue]),
            np.concatenate([self.unit, other.unit]),
            np.concatenate([self.counts, other.counts]),
        )


@dataclass
class _Reading:
    """What a rebuild read: per criterion id its units' counts, and per (annotator, dialogue) the items and
    judgements that count (so that a dialogue read again replaces exactly what it contributed)."""

    population: Population
    criteria: dict[int, _Criterion] = field(default_factory=dict)
    items: dict[tuple[int, int], int] = field(default_factory=dict)
    judgements: dict[tuple[int, int], int] = field(default_factory=dict)


def _read(project: Project, dialogue_ids: set[int] | None = None) -> _Reading:
    """The judgements that count now, of every dialogue or of ``dialogue_ids`` only."""
    population = population_of(project)
    reading = _Reading(population)
    for data in project_judgements(project, long_form=False, dialogue_ids=dialogue_ids).values():
        counts = data.counts()
        kept = counts.sum(axis=1) > 0
        reading.criteria[data.criterion.pk] = _Criterion(
            data.unit_dialogue[kept].astype(np.int64), data.unit_index[kept].astype(np.int64), counts[kept]
        )
    assignments = gold_assignments(project, population)
    judgements = gold_judgements(project, population)
    if dialogue_ids is not None:
        assignments = assignments.filter(dialogue_id__in=dialogue_ids)
        judgements = judgements.filter(assignment__dialogue_id__in=dialogue_ids)
    for annotator, dialogue, n in (
        assignments.values_list("annotator_id", "dialogue_id").annotate(n=Count("pk")).order_by().iterator()
    ):
        reading.items[(annotator, dialogue)] = n
    for annotator, dialogue, n in (
        judgements.values_list("assignment__annotator_id", "assignment__dialogue_id")
        .annotate(n=Count("pk"))
        .order_by()
        .iterator()
    ):
        reading.judgements[(annotator, dialogue)] = n
    return reading


def _unit_rows(reading: _Reading, generation: int) -> list[LiveUnitCounts]:
    return [
        LiveUnitCounts(criterion_id=pk, dialogue_id=d, unit=u, counts=",".join(map(str, row)), generation=generation)
        for pk, data in reading.criteria.items()
        for d, u, row in zip(data.dialogue.tolist(), data.unit.tolist(), data.counts.tolist())
    ]


def _claim(project: Project) -> tuple[int, int] | None:
    """Step 1: (the state's generation, its count of changes) when this run is to rebuild, else None (the state
    is fresh, or another run is at work)."""
    with transaction.atomic():
        LiveState.objects.get_or_create(
            project=project,
            defaults={"source": "", "built_at": None, "stale_since": timezone.now(), "stale_because": "first"},
        )
        state = LiveState.objects.select_for_update().get(project=project)  # saves in flight finish first
        if (state.built_at is not None and state.stale_since is None) or rebuild_running(state):
            return None
        LiveTouchedDialogue.objects.filter(project=project).delete()
        state.rebuilding_since = timezone.now()
        state.rebuild_covers = state.changes
        state.pending_since = None
        state.save(update_fields=["rebuilding_since", "rebuild_covers", "pending_since"])
        return state.generation, state.changes


def _release(project: Project) -> None:
    live_state_release(project_id=project.pk)


def live_state_release(*, project_id: int) -> None:
    """No rebuild is at work on the project's state any more (one failed, or its worker was lost)."""
    LiveState.objects.filter(project_id=project_id).update(rebuilding_since=None)


def _switch(project: Project, reading: _Reading, generation: int, started: float) -> bool:
    """Step 3, under the state's lock: the touched dialogues read again, the sums and counters written, the new
    generation made the state's. False (nothing switched) when the population changed since step 2."""
    with transaction.atomic():
        state = LiveState.objects.select_for_update().get(project=project)  # saves wait until this commits
        if population_of(project) != reading.population:
            return False
        touched = set(LiveTouchedDialogue.objects.filter(project=project).values_list("dialogue_id", flat=True))
        if touched:
            again = _read(project, touched)
            for pk, data in reading.criteria.items():
                fresh = again.criteria.get(pk)
                data = data.without(touched)
                reading.criteria[pk] = data.plus(fresh) if fresh is not None else data
            for counter, fresh in ((reading.items, again.items), (reading.judgements, again.judgements)):
                for key in [key for key in counter if key[1] in touched]:
                    del counter[key]
                counter.update(fresh)
            LiveUnitCounts.objects.filter(
                criterion_id__in=list(reading.criteria), generation=generation, dialogue_id__in=touched
            ).delete()
            LiveUnitCounts.objects.bulk_create(_unit_rows(again, generation), batch_size=5000)
        terms: dict = defaultdict(int)
        for pk, data in reading.criteria.items():
            _group_terms(terms, pk, data.counts)
        LiveAgreementTerm.objects.filter(criterion__project=project).delete()
        LiveAgreementTerm.objects.bulk_create(
            [LiveAgreementTerm(criterion_id=c, raters=m, first=f, second=s, n=n) for (c, m, f, s), n in terms.items()],
            batch_size=5000,
        )
        items: dict[int, int] = defaultdict(int)
        judged: dict[int, int] = defaultdict(int)
        for (annotator, _dialogue), n in reading.items.items():
            items[annotator] += n
        for (annotator, _dialogue), n in reading.judgements.items():
            judged[annotator] += n
        LiveAnnotatorCount.objects.filter(project=project).delete()
        LiveAnnotatorCount.objects.bulk_create(
            [
                LiveAnnotatorCount(project=project, annotator_id=a, items=items.get(a, 0), judgements=judged.get(a, 0))
                for a in set(items) | set(judged)
            ]
        )
        LiveTouchedDialogue.objects.filter(project=project).delete()
        covered = state.changes == state.rebuild_covers
        state.generation = generation
        state.source = reading.population.source
        state.excluded = list(reading.population.excluded)
        state.quality_dialogues = list(reading.population.quality_dialogues)
        state.built_at = timezone.now()
        state.rebuilt_because = state.stale_because
        state.stale_since = None if covered else state.pending_since or timezone.now()
        state.stale_because = "" if covered else state.stale_because
        state.pending_since = None
        state.rebuilding_since = None
        state.rebuild_seconds = round(time.perf_counter() - started, 3)
        state.save()
    log.info(
        "live statistics of project %s rebuilt in %.1f s (%s dialogues changed meanwhile)",
        project.pk,
        state.rebuild_seconds,
        len(touched),
    )
    return True


def _rebuild_once(project: Project) -> bool:
    """One claim, reading and switch; True when it switched to a new generation."""
    claimed = _claim(project)
    if claimed is None:
        return False
    current, _changes = claimed
    generation = current + 1
    started = time.perf_counter()
    criteria = list(project.criteria.values_list("pk", flat=True))
    try:
        reading = _read(project)
        with transaction.atomic():  # step 2's rows: a generation no save reads (a dead run's left-overs first)
            LiveUnitCounts.objects.filter(criterion_id__in=criteria).exclude(generation=current).delete()
            LiveUnitCounts.objects.bulk_create(_unit_rows(reading, generation), batch_size=5000)
        switched = _switch(project, reading, generation, started)
    except BaseException:
        _release(project)  # the next request asks again
        raise
    if not switched:
        _release(project)
        return False
    LiveUnitCounts.objects.filter(criterion_id__in=criteria, generation=current).delete()  # no save reads them
    return True


def live_state_rebuild(*, project_id: int) -> int:
    """Rebuild the project's live state while it is stale (``PASSES`` at most); returns how many rebuilds
    switched. Safe to run twice and at once (the claim lets one run work)."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return 0
    switched = 0
    for _ in range(PASSES):
        if not _rebuild_once(project):
            state = LiveState.objects.filter(project=project).first()
            if state is None or state.stale_since is None or rebuild_running(state):
                break  # fresh, or another run is at work
            continue  # the population changed while reading: read again
        switched += 1
        if LiveState.objects.filter(project=project, stale_since__isnull=True).exists():
            break
    return switched


def live_state_verify(*, project: Project) -> bool:
    """Check the state against the counts the full recomputation just stored (the reference); mark it stale
    (a rebuild follows) when they differ (a warning: a change that bypassed the saves, such as an admin edit).

    Runs with the state locked, so that no save is half applied; only when the stored gold counts are those of
    the judgements now (else a later recomputation checks) and the state is fresh. True when found exact.
    """
    with transaction.atomic():
        state = LiveState.objects.select_for_update().filter(project=project).first()
        if state is None or state.built_at is None or state.stale_since is not None:
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
        live_state_stale(project_id=project.pk, reason="differed")
    return False
