"""The live per-unit label counts (``LiveUnitCounts``, kept by every save) as arrays, when they are exact now.

The adaptive hand-out reads an item's units' counts here instead of counting the judgements (2.2 s on an
STC-3-sized project, under the project's lock): the counts are those ``project_judgements(long_form=False)``
gives (the same population, the same asked units, imported counts included, units without a label left out),
kept within each save's transaction. Only a state that is built, not stale and for today's population is read;
otherwise the caller counts the judgements as before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db import connection

from annotator.models import Criterion, Project
from annotator.selectors.population import population_of
from evaluation.models import LiveState, LiveUnitCounts


@dataclass(frozen=True)
class UnitCounts:
    """One criterion's units with a label: their dialogues and counts (units x the criterion's scale)."""

    unit_dialogue: np.ndarray
    counts: np.ndarray


def _population_recorded(project: Project) -> bool:
    state = LiveState.objects.filter(project=project).values_list("source", "excluded", "quality_dialogues").first()
    if state is None:
        return False
    population = population_of(project)
    return (state[0], tuple(state[1]), tuple(state[2])) == (
        population.source,
        population.excluded,
        population.quality_dialogues,
    )


def live_unit_counts(project: Project, criteria: dict[int, tuple[str, int]]) -> dict[str, UnitCounts] | None:
    """Per criterion key, its units' live counts; None when the state is not exact now (missing, never built,
    stale, or built for another population). ``criteria``: id -> (key, the scale's length).

    One statement reads the state's generation and its rows, so that a rebuild switching meanwhile is either
    wholly before or wholly after this read."""
    if not _population_recorded(project):
        return None
    states, units, criteria_table = LiveState._meta.db_table, LiveUnitCounts._meta.db_table, Criterion._meta.db_table
    if connection.vendor == "postgresql":
        joined = "string_agg(u.dialogue_id::text || ',' || u.counts, ',')"
    else:
        joined = "group_concat(u.dialogue_id || ',' || u.counts, ',')"
    with connection.cursor() as cursor:  # a row per criterion: "dialogue,count,count,...,dialogue,count,..."
        cursor.execute(
            f"SELECT u.criterion_id, COUNT(u.id), {joined} FROM {states} s "
            f"LEFT JOIN {units} u ON u.generation = s.generation AND u.criterion_id IN "
            f"(SELECT id FROM {criteria_table} WHERE project_id = s.project_id) "
            "WHERE s.project_id = %s AND s.built_at IS NOT NULL AND s.stale_since IS NULL GROUP BY u.criterion_id",
            [project.pk],
        )
        rows = cursor.fetchall()
    if not rows:
        return None  # never built, or stale
    found = {criterion_id: (n, text) for criterion_id, n, text in rows if criterion_id is not None}
    out = {}
    for pk, (key, width) in criteria.items():
        n, text = found.get(pk, (0, ""))
        table = np.fromstring(text, dtype=np.int64, sep=",").reshape(n, width + 1) if n else np.zeros((0, width + 1))
        counts = table[:, 1:].astype(np.int64)
        kept = counts.sum(axis=1) > 0  # a unit whose every label was taken back is not a unit of the gold data
        out[key] = UnitCounts(table[kept, 0].astype(np.int64), counts[kept])
    return out
