"""Judges of a project and their labels as arrays, beside (never inside) the humans' judgements.

``judge_label_arrays`` is to a judge what ``annotator.selectors.judgement_arrays.project_judgements``
is to the humans: per criterion, one row per labelled unit, keyed as the humans' units are
(``dialogue`` is the dialogue's id as in ``CriterionJudgements.unit_dialogue``, ``unit`` the unit index
as in ``CriterionJudgements.unit_index``), sorted by that key, so that ``JudgeLabels.align`` joins the
two with one ``searchsorted``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import Count, Q, QuerySet

from annotator.models import Criterion, Judge, JudgeLabel, Project

_SHIFT = np.int64(1) << 32  # (dialogue id, unit) as one sortable integer, as judgement_arrays keys units


@dataclass(frozen=True)
class JudgeLabels:
    """One judge's labels of one criterion, one row per labelled unit, sorted by (dialogue id, unit).

    ``values`` is the criterion's scale in order; ``value[k]`` the label of unit (``dialogue[k]``,
    ``unit[k]``) of the item whose external id is ``item[k]``; ``distribution`` (units x values, rows in
    ``values`` order) the judge's probabilities, a row of NaN where the judge gave none, or None when it
    gave none at all. Units the judge was asked about but gave no usable answer for are not rows; their
    count is ``missing``.
    """

    criterion: Criterion
    values: list[str]
    dialogue: np.ndarray
    item: np.ndarray
    unit: np.ndarray
    value: np.ndarray
    distribution: np.ndarray | None
    missing: int = 0

    def __len__(self) -> int:
        return len(self.unit)

    @property
    def keys(self) -> np.ndarray:
        """(dialogue id, unit) as one integer per row, sorted."""
        return self.dialogue.astype(np.int64) * _SHIFT + self.unit.astype(np.int64)

    @property
    def value_index(self) -> np.ndarray:
        """Each label's index into ``values``."""
        code = {v: i for i, v in enumerate(self.values)}
        return np.array([code[v] for v in self.value.tolist()], dtype=np.int64)

    def align(self, unit_dialogue: np.ndarray, unit_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Join with the humans' units (``CriterionJudgements.unit_dialogue`` and ``.unit_index``):
        ``(rows, units)`` such that row ``rows[i]`` of these labels is human unit ``units[i]``; units either
        side does not have are left out."""
        human = np.asarray(unit_dialogue, dtype=np.int64) * _SHIFT + np.asarray(unit_index, dtype=np.int64)
        mine = self.keys
        at = np.searchsorted(mine, human)
        at_clipped = np.minimum(at, max(len(mine) - 1, 0))
        found = (at < len(mine)) & (mine[at_clipped] == human) if len(mine) else np.zeros(len(human), dtype=bool)
        units = np.flatnonzero(found)
        return at_clipped[units].astype(np.int64), units.astype(np.int64)


def judges_of(project: Project) -> QuerySet[Judge]:
    """The project's judges, oldest first, each with ``n_labels`` (units labelled) and ``n_missing``
    (units asked about without a usable answer)."""
    return (
        Judge.objects.filter(project=project)
        .annotate(
            n_labels=Count("labels", filter=~Q(labels__value="")),
            n_missing=Count("labels", filter=Q(labels__value="")),
        )
        .order_by("created_at", "pk")
    )


def judge_of(project: Project, name: str) -> Judge | None:
    """The project's judge called ``name``, if any."""
    return Judge.objects.filter(project=project, name=name).first()


def _scale(criterion: Criterion) -> list[str]:
    return list(dict.fromkeys(criterion.allowed_values()))


def judge_label_arrays(judge: Judge, *, keys=None) -> dict[str, JudgeLabels]:
    """Every criterion's labels by ``judge`` as arrays (one query); ``keys`` reads only those criteria.

    Every criterion of the project has an entry, empty when the judge labelled none of its units. A criterion's
    "not applicable" labels are left out.
    """
    criteria = [c for c in judge.project.criteria.all() if keys is None or c.key in keys]
    rows: dict[int, list[tuple]] = {c.pk: [] for c in criteria}
    missing: dict[int, int] = dict.fromkeys(rows, 0)
    labels = (
        JudgeLabel.objects.filter(judge=judge, criterion_id__in=list(rows))
        .values_list("criterion_id", "dialogue_id", "dialogue__external_id", "unit", "value", "distribution")
        .order_by("criterion_id", "dialogue_id", "unit")
    )
    not_applicable = {c.pk: c.not_applicable_value for c in criteria}
    for criterion_id, dialogue_id, item, unit, value, distribution in labels.iterator(chunk_size=20000):
        if value == "":
            missing[criterion_id] += 1
        elif value == not_applicable[criterion_id]:
            continue  # an answer, not a value: left out of the alignment as out of the gold (judgement_arrays)
        else:
            rows[criterion_id].append((dialogue_id, item, unit, value, distribution))
    return {c.key: _arrays(c, rows[c.pk], missing[c.pk]) for c in criteria}


def _arrays(criterion: Criterion, rows: list[tuple], missing: int) -> JudgeLabels:
    values = _scale(criterion)
    dialogue = np.array([r[0] for r in rows], dtype=np.int64)
    unit = np.array([r[2] for r in rows], dtype=np.int64)
    distribution = None
    if any(r[4] is not None for r in rows):
        distribution = np.full((len(rows), len(values)), np.nan)
        for k, r in enumerate(rows):
            if r[4] is not None:
                distribution[k] = [float(r[4].get(v, 0.0)) for v in values]
    return JudgeLabels(
        criterion=criterion,
        values=values,
        dialogue=dialogue,
        item=np.array([r[1] for r in rows], dtype=object),
        unit=unit,
        value=np.array([r[3] for r in rows], dtype=object),
        distribution=distribution,
        missing=missing,
    )
