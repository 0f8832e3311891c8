"""The one path from the judgements table to arrays: the adapter between Django and the library.

Everything statistical reads a project through ``project_judgements``: per criterion, one row per
judgement in long form (unit index, annotator index, value index), plus the units' dialogues,
positions and speakers. Counts per unit (units x values) are a ``bincount`` away, and imported
per-unit counts (NLPCC) are added to them. Only the units the criterion asks about count
(``annotator.units``): a judgement left on any other unit, such as a DBDC opening prompt
labelled before the preset followed the DBDC3 protocol, is not part of the gold data; nor is a criterion's
"not applicable" answer. Only the
judgements that count (``annotator.selectors.population``: not on control or training items, not by an
excluded annotator, from the chosen source) are read.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass
from itertools import chain, islice

import numpy as np
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import Count, Q

from annotator.models import Criterion, Post, Project, Unit
from annotator.presets import UnitRule
from annotator.selectors.population import gold_counts, gold_judgements, population_of
from annotator.selectors.structure import DialogueShape
from annotator.units import required_units


@dataclass(frozen=True)
class CriterionJudgements:
    """All submitted judgements of one criterion, in long form.

    ``values`` is the criterion's scale (every speaker's values, in scale order, each once);
    ``unit_dialogue[u]``, ``unit_index[u]`` and ``unit_speaker[u]`` describe unit ``u``;
    judgement ``k`` gave ``values[value[k]]`` to unit ``unit[k]`` as annotator ``annotators[annotator[k]]``.
    ``unit_counts`` holds per-unit counts that are not in long form (units x values): counts
    published without annotators (NLPCC), and all counts when loaded with ``long_form=False``.
    """

    criterion: Criterion
    values: list[str]
    unit_dialogue: np.ndarray
    unit_index: np.ndarray
    unit_speaker: np.ndarray
    annotators: np.ndarray
    unit: np.ndarray
    annotator: np.ndarray
    value: np.ndarray
    unit_counts: np.ndarray

    @property
    def n_units(self) -> int:
        return len(self.unit_dialogue)

    def counts(self) -> np.ndarray:
        """Per-unit value counts (units x values), judgements and imported counts together."""
        n_values = len(self.values)
        flat = np.bincount(self.unit * n_values + self.value, minlength=self.n_units * n_values)
        return flat.reshape(self.n_units, n_values) + self.unit_counts

    def scale(self, speaker: str) -> list[int]:
        """Indices into ``values`` of the values that apply to units by ``speaker``."""
        allowed = set(self.criterion.allowed_values(speaker if self.criterion.speakers else None))
        return [i for i, v in enumerate(self.values) if v in allowed]


FETCH_ROWS = 50_000  # rows turned into arrays at a time (ten times STC-3 reads five million judgements)
_SHIFT = np.int64(1) << 32  # (dialogue id, unit) as one sortable integer


@dataclass
class _Columns:
    """Rows read from the database as integer columns: criterion, dialogue, unit, a fourth integer (the
    annotator, or a count) and the value's index on its criterion's scale."""

    criterion: np.ndarray
    dialogue: np.ndarray
    unit: np.ndarray
    other: np.ndarray
    value: np.ndarray

    def where(self, keep: np.ndarray) -> _Columns:
        return _Columns(self.criterion[keep], self.dialogue[keep], self.unit[keep], self.other[keep], self.value[keep])

    @property
    def keys(self) -> np.ndarray:
        return self.dialogue * _SHIFT + self.unit


def _fetched(queryset) -> Iterator[tuple]:
    """The rows of ``queryset`` through a plain cursor, ``FETCH_ROWS`` Python rows at a time.

    Not ``QuerySet.iterator()``: on PostgreSQL it declares a server-side cursor, and a statement that fails
    (a lock timeout) then surfaces as the failed ``CLOSE`` of that cursor instead of the ``OperationalError``
    that the recomputation task retries.
    """
    try:
        sql, params = queryset.query.get_compiler(using=queryset.db).as_sql()
    except EmptyResultSet:  # a queryset that can hold nothing (``.none()``)
        return
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(FETCH_ROWS):
            yield from batch


def _columns(rows, codes: dict[int, dict[str, int]], *, value_last: bool) -> _Columns:
    """``rows`` ((criterion, dialogue, unit, annotator, value) with ``value_last``, else (criterion, dialogue,
    unit, value, count)) read ``FETCH_ROWS`` at a time into integer arrays, so that memory holds the arrays
    and one batch of rows, not millions of tuples.

    Rows are fetched by the database cursor inside this loop: an error while reading (a lock timeout, a
    restarting server) is raised here, where the task that asked knows to retry.
    """
    parts: list[tuple[np.ndarray, ...]] = []
    iterator = iter(rows)
    while batch := list(islice(iterator, FETCH_ROWS)):
        c, d, u, x, y = zip(*batch)
        other, values = (x, y) if value_last else (y, x)
        parts.append(
            (
                np.array(c, dtype=np.int64),
                np.array(d, dtype=np.int64),
                np.array(u, dtype=np.int64),
                np.array(other, dtype=np.int64),
                np.array([codes[ci][v] for ci, v in zip(c, values)], dtype=np.int64),
            )
        )
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return _Columns(empty, empty, empty, empty, empty)
    return _Columns(*(np.concatenate(column) for column in zip(*parts)))


def _scale_values(criterion: Criterion) -> list[str]:
    return list(dict.fromkeys(criterion.allowed_values()))


@dataclass(frozen=True)
class _Shapes:
    """The posts of the dialogues read: each post's and each utterance block's speaker, and each dialogue's
    shape (which units a criterion asks about)."""

    speaker_of_post: dict[tuple[int, int], str]
    speaker_of_block: dict[tuple[int, int], str]
    dialogue: dict[int, DialogueShape]

    def speakers(self, unit_kind: str, dialogue: np.ndarray, index: np.ndarray) -> list[str]:
        """The speaker of each unit (``dialogue[u]``, ``index[u]``) of a criterion on ``unit_kind`` units."""
        if unit_kind == Unit.DIALOGUE:
            return [""] * len(dialogue)
        of = self.speaker_of_block if unit_kind == Unit.TURN else self.speaker_of_post
        return [of.get(key, "") for key in zip(dialogue.tolist(), index.tolist())]


@dataclass(frozen=True)
class _Reading:
    """What is read of a project: the criteria with their scales, the population's judgements and counts
    as integer columns (``_columns``), and the dialogues' shapes."""

    criteria: list[Criterion]
    scales: dict[int, list[str]]
    judged: _Columns  # one row per judgement: ``other`` is the annotator
    counted: _Columns  # one row per (unit, value) count: ``other`` is the count
    shapes: _Shapes


def _read(project: Project, *, long_form: bool, keys, dialogue_ids) -> _Reading:
    """Step 1: read the judgements (each one, or counted per unit and value by the database), the imported
    counts and the posts, in a few bulk queries."""
    criteria = [c for c in project.criteria.all() if keys is None or c.key in keys]
    scales = {c.pk: _scale_values(c) for c in criteria}
    codes = {pk: {v: i for i, v in enumerate(values)} for pk, values in scales.items()}
    population = population_of(project)
    submitted = gold_judgements(project, population)
    published = gold_counts(project, population)
    posts = Post.objects.filter(dialogue__project=project)
    if keys is not None:
        submitted = submitted.filter(criterion__in=criteria)
        published = published.filter(criterion__in=criteria)
    # "not applicable" is an answer, not a value: it is no part of the reliability data
    not_applicable = Q()
    for c in criteria:
        if c.not_applicable_value is not None:
            not_applicable |= Q(criterion_id=c.pk, value=c.not_applicable_value)
    if not_applicable:
        submitted, published = submitted.exclude(not_applicable), published.exclude(not_applicable)
    if dialogue_ids is not None:
        submitted = submitted.filter(assignment__dialogue_id__in=dialogue_ids)
        published = published.filter(dialogue_id__in=dialogue_ids)
        posts = posts.filter(dialogue_id__in=dialogue_ids)
    judged = _columns([], codes, value_last=True)
    counted = [_fetched(published.values_list("criterion_id", "dialogue_id", "unit", "value", "count").order_by())]
    if long_form:
        each = submitted.values_list(
            "criterion_id", "assignment__dialogue_id", "unit", "assignment__annotator_id", "value"
        ).order_by()
        judged = _columns(_fetched(each), codes, value_last=True)
    else:
        per_unit = submitted.values_list("criterion_id", "assignment__dialogue_id", "unit", "value")
        counted.append(_fetched(per_unit.annotate(n=Count("pk")).order_by()))
    return _Reading(
        criteria,
        scales,
        judged,
        _columns(chain(*counted), codes, value_last=False),
        _read_shapes(posts),
    )


def _read_shapes(posts) -> _Shapes:
    rows = posts.order_by("dialogue_id", "position").values_list(
        "dialogue_id", "position", "utterance_block", "speaker", "source_annotated"
    )
    speaker_of_post: dict[tuple[int, int], str] = {}
    speaker_of_block: dict[tuple[int, int], str] = {}
    post_rows: dict[int, list[tuple]] = {}
    for dialogue_id, position, block, speaker, annotated in rows.iterator(chunk_size=20000):
        speaker_of_post[(dialogue_id, position)] = speaker
        speaker_of_block.setdefault((dialogue_id, block), speaker)
        post_rows.setdefault(dialogue_id, []).append((speaker, block, annotated))
    shapes = {d: DialogueShape.of_posts(r) for d, r in post_rows.items()}
    return _Shapes(speaker_of_post, speaker_of_block, shapes)


def _asked(columns: _Columns, criterion: Criterion, reading: _Reading, asked: dict[int, set[int]]) -> _Columns:
    """Step 2: the rows on units the criterion asks about (``required_units`` of each dialogue's shape,
    looked up once per unit, not per row). Under ``UnitRule.EVERY`` every stored judgement is on an asked
    unit (saves and imports check it), so nothing is looked up. ``asked`` caches each dialogue's asked units
    for the criterion, shared by its judgements and its counts."""
    if criterion.applies_to == UnitRule.EVERY or not len(columns.unit):
        return columns
    keys = columns.keys
    dropped = []
    for key in np.unique(keys).tolist():
        dialogue_id, unit = key >> 32, key & 0xFFFFFFFF
        if dialogue_id not in asked:
            shape = reading.shapes.dialogue.get(dialogue_id, DialogueShape((), ()))
            asked[dialogue_id] = set(required_units(criterion, shape))
        if unit not in asked[dialogue_id]:
            dropped.append(key)
    if not dropped:
        return columns
    return columns.where(~np.isin(keys, np.array(dropped, dtype=np.int64)))


def _assembled(criterion: Criterion, reading: _Reading) -> CriterionJudgements:
    """Step 3: one criterion's arrays: its units (the judged or counted (dialogue, unit) pairs, sorted),
    annotators, long-form judgements and per-unit counts."""
    asked: dict[int, set[int]] = {}
    judged = _asked(reading.judged.where(reading.judged.criterion == criterion.pk), criterion, reading, asked)
    counted = _asked(reading.counted.where(reading.counted.criterion == criterion.pk), criterion, reading, asked)
    values = reading.scales[criterion.pk]
    unit_keys, inverse = np.unique(np.concatenate([judged.keys, counted.keys]), return_inverse=True)
    inverse = inverse.reshape(-1)
    unit_dialogue, unit_index = unit_keys >> 32, unit_keys & 0xFFFFFFFF
    annotators, annotator = np.unique(judged.other, return_inverse=True)
    unit_counts = np.zeros((len(unit_keys), len(values)), dtype=np.int64)
    np.add.at(unit_counts, (inverse[len(judged.unit) :], counted.value), counted.other)
    return CriterionJudgements(
        criterion=criterion,
        values=values,
        unit_dialogue=unit_dialogue.astype(np.int64),
        unit_index=unit_index.astype(np.int64),
        unit_speaker=np.array(reading.shapes.speakers(criterion.unit, unit_dialogue, unit_index), dtype=object),
        annotators=annotators,
        unit=inverse[: len(judged.unit)].astype(np.int64),
        annotator=annotator.astype(np.int64).reshape(-1),
        value=judged.value,
        unit_counts=unit_counts,
    )


def project_judgements(
    project: Project,
    *,
    long_form: bool = True,
    keys: Collection[str] | None = None,
    dialogue_ids: Collection[int] | None = None,
) -> dict[str, CriterionJudgements]:
    """Every criterion's submitted judgements and imported counts as arrays (a few bulk queries).

    With ``long_form=False`` the database counts the judgements per unit and value instead of
    returning each one (all counts then sit in ``unit_counts``): enough for gold distributions and run
    scoring, and much less to read. ``keys`` and ``dialogue_ids`` read only those criteria and
    dialogues (an export going through a large project a slice at a time).
    """
    reading = _read(project, long_form=long_form, keys=keys, dialogue_ids=dialogue_ids)
    return {criterion.key: _assembled(criterion, reading) for criterion in reading.criteria}
