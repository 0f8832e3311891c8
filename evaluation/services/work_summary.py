"""The work behind the statistics, as a part of their payload: how many items were judged, by how many
annotators each (K as it came out, beside the K the project asks for), how many annotators judged each unit
of each criterion (the K a paper states: per system turn in DBDC3, per dialogue and per utterance block in
STC-3), how many items' judgements were imported with the source collection and how many were collected
here, and the time an item took.

The study report (``evaluation.services.report``) states these beside the agreement figures, so that
every number it gives comes from the one stored payload with its fingerprint and time.
"""

from __future__ import annotations

import numpy as np
from django.db.models import Count

from annotator.models import Project
from annotator.selectors.judgement_arrays import CriterionJudgements
from annotator.selectors.population import gold_assignments


def spread(values) -> dict | None:
    """Median, quartiles and range of ``values`` (None when there are none).

    >>> spread([1, 2, 3, 4, 100])
    {'n': 5, 'median': 3.0, 'q1': 2.0, 'q3': 4.0, 'min': 1.0, 'max': 100.0}
    >>> spread([]) is None
    True
    """
    x = np.asarray(values, dtype=float)
    if not len(x):
        return None
    q1, median, q3 = np.percentile(x, [25, 50, 75])
    return {
        "n": len(x),
        "median": float(median),
        "q1": float(q1),
        "q3": float(q3),
        "min": float(x.min()),
        "max": float(x.max()),
    }


def work_summary(project: Project, judgements: dict[str, CriterionJudgements]) -> dict:
    """Items judged, annotators per item and seconds per item, over the judgements the statistics count.

    An item is a dialogue with a counted judgement; its annotators are those who judged any of its units
    (counts imported without annotators, NLPCC's, are not people and are left out). Seconds are those the
    browser measured on the project's own submitted items (imported judgements carry no time).
    """
    pairs = []  # (dialogue id, user id) of every counted judgement, one per pair
    dialogues = set()
    for data in judgements.values():
        if data.n_units:
            dialogues.update(np.unique(data.unit_dialogue[data.unit_counts.sum(axis=1) > 0]).tolist())
        if len(data.unit):
            users = data.annotators[data.annotator].astype(np.int64)
            pairs.append(np.unique(np.stack([data.unit_dialogue[data.unit].astype(np.int64), users]), axis=1))
    if pairs:
        both = np.unique(np.concatenate(pairs, axis=1), axis=1)
        dialogues.update(np.unique(both[0]).tolist())
        per_item = np.unique(both[0], return_counts=True)[1]
    else:
        per_item = np.array([], dtype=int)
    counted = gold_assignments(project)
    seconds = list(counted.filter(imported=False, seconds_spent__gt=0).values_list("seconds_spent", flat=True))
    origin = dict(
        counted.order_by()
        .values_list("imported")
        .annotate(n=Count("dialogue_id", distinct=True))
        .values_list("imported", "n")
    )
    return {
        "items": len(dialogues),
        "items_with_annotators": len(per_item),
        "annotators_per_item": spread(per_item),
        "seconds_per_item": spread(seconds),
        "annotators_per_item_asked": project.annotators_per_dialogue,
        "annotators_per_unit": {key: annotators_per_unit(data) for key, data in judgements.items()},
        "items_imported": origin.get(True, 0),
        "items_collected": origin.get(False, 0),
    }


def annotators_per_unit(data: CriterionJudgements) -> dict | None:
    """The spread of the number of annotators who judged each unit of one criterion (units judged by someone;
    one judgement per annotator and unit), None without judgements by known annotators.

    Counts imported without annotators (NLPCC's) are not people and are left out, as in ``work_summary``.
    """
    per_unit = np.bincount(data.unit, minlength=data.n_units) if len(data.unit) else np.zeros(0, dtype=int)
    return spread(per_unit[per_unit > 0])
