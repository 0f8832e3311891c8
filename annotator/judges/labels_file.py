"""A judge's labels as JSON lines, for any preset: one ``{"id", "labels": [...]}`` per item.

Each label is ``{"criterion", "unit"?, "value"?, "distribution"?}``: ``unit`` as the judgements
table numbers it (0 for the dialogue, the post's position, the utterance block's index; default 0),
``value`` a value of the criterion's scale, ``distribution`` an object ``{value: probability}`` over
the scale (its most probable value is the label when ``value`` is absent). The item's dialogue must
already be in the project.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from scoring.errors import N_
from scoring.input import read_json_lines


@dataclass
class ParsedLabel:
    """One label of a judge: where it came from (``file``, ``record``, ``field``) for messages."""

    file: str
    record: str
    criterion: str
    unit: int
    value: str | None
    distribution: dict | None
    field: str


def is_labels_file(path: Path) -> bool:
    """Whether a JSON lines file's first record holds ``"labels"`` (a judge's labels, not a collection)."""
    with open(path, "rb") as fh:
        for raw in fh:
            if raw.strip():
                return b'"labels"' in raw
    return False


def read_judge_labels(path: Path, *, display: str) -> Iterator[ParsedLabel]:
    with open(path, "rb") as fh:
        for line, record in read_json_lines(fh, display):
            at = line.at(line.field(record, "id", (str, int)))
            labels = at.field(record, "labels", list)
            for k, label in enumerate(labels):
                where = f"labels[{k}]"
                criterion = at.text(label, "criterion", where, non_empty=True)
                unit = at.field(label, "unit", int, where, optional=True)
                if unit is not None and unit < 0:
                    raise at.error(N_("is negative"), f"{where}.unit")
                value = at.field(label, "value", (str, int), where, optional=True)
                distribution = at.field(label, "distribution", dict, where, optional=True)
                if value is None and distribution is None:
                    raise at.error(N_("has neither a value nor a distribution"), where)
                yield ParsedLabel(
                    file=line.file,
                    record=str(at.id),
                    criterion=criterion,
                    unit=0 if unit is None else unit,
                    value=None if value is None else str(value),
                    distribution=distribution,
                    field=where,
                )
