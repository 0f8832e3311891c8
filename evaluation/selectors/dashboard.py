"""Reads for the dashboard: how fresh the statistics are, one dialogue's judgements side by side."""

from __future__ import annotations

import numpy as np
from django.db.models import Max
from django.utils.translation import gettext, gettext_lazy

from annotator.models import (
    Assignment,
    AssignmentStatus,
    Criterion,
    Dialogue,
    ImportBatch,
    ImportStatus,
    Judgement,
    Project,
    Unit,
)
from annotator.selectors.manage import natural_key
from evaluation.models import ProjectStatistics, StatisticsJob


def freshness(*, project: Project, count_new_items: bool = True) -> dict:
    """How current the stored statistics are: when computed, what they cover, what changed since.

    Constant time, whatever the project's size: every write that changes what the statistics count
    requests a recomputation (saves, batch removals, quality decisions, the admin) or is an import
    (a finished ``ImportBatch``, from the pages, the API or ``import_dialogues``), so the statistics
    are up to date when neither came after the judgements were last read for them
    (``ProjectStatistics.checked_at``). The items submitted since are counted through the index on
    ``submitted_at`` (``count_new_items``; 0 when not asked). The recomputation itself still compares the exact
    fingerprint of the judgements.
    """
    stored = ProjectStatistics.objects.filter(project=project).first()
    job = StatisticsJob.objects.filter(project=project).first()
    imported = ImportBatch.objects.filter(project=project, status=ImportStatus.DONE).aggregate(last=Max("finished_at"))
    changes = [t for t in (job and job.requested_at, imported["last"]) if t is not None]
    checked = stored and stored.checked_at
    up_to_date = bool(stored and (not changes or (checked and max(changes) <= checked)))
    since = checked or (stored and stored.computed_at)
    new_items = 0
    if count_new_items and stored and not up_to_date and since:
        new_items = Assignment.objects.filter(
            dialogue__project=project, status=AssignmentStatus.SUBMITTED, submitted_at__gt=since
        ).count()
    return {
        "stored": stored,
        "up_to_date": up_to_date,
        "new_items": new_items,
        "pending": bool(job and job.pending),
        "last_error": job.last_error if job else "",
    }


UNIT_NAMES = {
    Unit.POST: gettext_lazy("post %(number)s"),
    Unit.TURN: gettext_lazy("turn %(number)s"),
    Unit.SYSTEM_TURN: gettext_lazy("system turn %(number)s"),
    Unit.REPLY: gettext_lazy("reply %(number)s"),
}


def short_label(label: str) -> str:
    """The part of a value's label annotators see on its button, before the explanation.

    >>> short_label("NB: not a breakdown"), short_label("-2: very poor"), short_label("Yes")
    ('NB', '-2', 'Yes')
    """
    return label.split(":", 1)[0].strip() or label


def value_labels(criteria: list[Criterion]) -> dict[str, dict[str, str]]:
    """criterion key -> stored value -> the short label annotators see (NB, PB, B rather than O, T, X)."""
    return {c.key: {v["value"]: short_label(v.get("label") or v["value"]) for v in c.values} for c in criteria}


def unit_name(criterion: Criterion | None, unit: int) -> str:
    """'the dialogue' for dialogue-level criteria, else the unit's kind and number ('system turn 4')."""
    if criterion is None:
        return str(unit)
    if criterion.unit == Unit.DIALOGUE:
        return gettext("the dialogue")
    name = UNIT_NAMES.get(criterion.unit)
    return str(name) % {"number": unit} if name else f"{criterion.unit} {unit}"


def disputed_rows(payload: dict, criteria: list[Criterion]) -> list[dict]:
    """The payload's disputed units with entropy above zero, their units named and values labelled."""
    by_key = {c.key: c for c in criteria}
    labels = value_labels(criteria)
    return [
        {
            **d,
            "unit_name": unit_name(by_key.get(d["criterion"]), d["unit"]),
            "labelled_counts": [
                (labels.get(d["criterion"], {}).get(v, v), d["counts"][v])
                for v in _scale_order(by_key.get(d["criterion"]), d["counts"])
                if d["counts"][v]
            ],
        }
        for d in payload.get("disputed", [])
        if d["entropy"] > 0
    ]


def _scale_order(criterion: Criterion | None, counts: dict) -> list[str]:
    """The values of ``counts`` in the criterion's scale order (PostgreSQL's jsonb does not keep key order)."""
    scale = list(dict.fromkeys(criterion.allowed_values())) if criterion else []
    return [v for v in scale if v in counts] + [v for v in counts if v not in scale]


def unit_figures(values: list[str], criterion: Criterion | None, labels: dict[str, str]) -> dict:
    """One unit's label distribution (labels as annotators see them, in scale order), the entropy of its
    shares over the criterion's values (0 unanimous, 1 spread evenly; as the disputed units') and the share
    of its pairs of labels that agree (None below two labels).

    >>> f = unit_figures(["O", "O", "X"], None, {"O": "NB", "X": "B"})
    >>> f["distribution"], round(f["agreement"], 4), f["entropy"] > 0
    ([('NB', 2), ('B', 1)], 0.3333, True)
    """
    scale = list(dict.fromkeys(criterion.allowed_values())) if criterion else list(dict.fromkeys(values))
    scale += [v for v in dict.fromkeys(values) if v not in scale]
    counts = np.array([values.count(v) for v in scale], dtype=float)
    m = counts.sum()
    shares = counts[counts > 0] / m
    entropy = float(-(shares * np.log(shares)).sum() / np.log(len(scale))) if len(scale) > 1 else 0.0
    agreement = float((counts * (counts - 1)).sum() / (m * (m - 1))) if m >= 2 else None
    return {
        "distribution": [(labels.get(v, v), int(n)) for v, n in zip(scale, counts) if n],
        "entropy": abs(entropy),
        "agreement": agreement,
    }


def dialogue_judgements_side_by_side(*, dialogue: Dialogue) -> dict:
    """Every submitted judgement of one dialogue: rows are units, columns annotators (lead-only view)."""
    rows = Judgement.objects.filter(
        assignment__dialogue=dialogue, assignment__status=AssignmentStatus.SUBMITTED
    ).values_list("criterion__key", "criterion__position", "unit", "assignment__annotator__username", "value")
    annotators = sorted({r[3] for r in rows}, key=natural_key)
    criteria = list(dialogue.project.criteria.all())
    labels, by_key = value_labels(criteria), {c.key: c for c in criteria}
    table: dict[tuple[int, str, int], dict[str, str]] = {}
    given: dict[tuple[int, str, int], list[str]] = {}
    for key, position, unit, annotator, value in rows:
        table.setdefault((position, key, unit), {})[annotator] = labels.get(key, {}).get(value, value)
        given.setdefault((position, key, unit), []).append(value)
    posts = list(dialogue.posts.order_by("position").values("position", "speaker", "text", "utterance_block"))
    return {
        "dialogue": dialogue,
        "annotators": annotators,
        "posts": posts,
        "rows": [
            {
                "criterion": key,
                "unit": unit,
                "unit_name": unit_name(by_key.get(key), unit),
                "values": [cells.get(a, "") for a in annotators],
                **unit_figures(given[(_p, key, unit)], by_key.get(key), labels.get(key, {})),
            }
            for (_p, key, unit), cells in sorted(table.items())
        ],
    }
