"""The one path from the judgements table to arrays: the adapter between Django and the library.

Everything statistical reads a project through ``project_judgements``: per criterion, one row per
judgement in long form (unit index, annotator index, value index), plus the units' dialogues,
positions and speakers. Counts per unit (units x values) are a ``bincount`` away, and imported
per-unit counts (NLPCC) are added to them. Only the units the criterion asks about count
(``annotator.services.units``): a judgement left on any other unit, such as a DBDC opening prompt
labelled before the preset followed the DBDC3 protocol, is not part of the gold data. Only the
judgements that count (``annotator.selectors.population``: not on control or training items, not by an
excluded annotator, from the chosen source) are read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import Count

from annotator.models import Criterion, Post, Project, Unit
from annotator.presets import UnitRule
from annotator.selectors.population import gold_counts, gold_judgements, population_of
from annotator.selectors.structure import DialogueShape
from annotator.services.units import required_units, unit_rule


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


def _object_rows(fetched: list[tuple]) -> np.ndarray:
    """Fetched 5-column rows as an (n, 5) object array (also when there are none)."""
    rows = np.empty((len(fetched), 5), dtype=object)
    if fetched:
        rows[:] = fetched
    return rows


def _scale_values(criterion: Criterion) -> list[str]:
    return list(dict.fromkeys(criterion.allowed_values()))


def _only_asked(rows: np.ndarray, is_asked) -> np.ndarray:
    """The rows (criterion, dialogue, unit, ...) whose unit the criterion asks about."""
    if not len(rows):
        return rows
    units = {(d, u) for d, u in rows[:, 1:3].tolist()}
    dropped = {key for key in units if not is_asked(*key)}
    if not dropped:
        return rows
    keep = np.array([(d, u) not in dropped for d, u in rows[:, 1:3].tolist()], dtype=bool)
    return rows[keep]


def project_judgements(project: Project, *, long_form: bool = True) -> dict[str, CriterionJudgements]:
    """Every criterion's submitted judgements and imported counts as arrays (a few bulk queries).

    With ``long_form=False`` the database counts the judgements per unit and value instead of
    returning each one: enough for gold distributions and run scoring, and much less to read.
    """
    criteria = list(project.criteria.all())
    population = population_of(project)
    submitted = gold_judgements(project, population)
    # Rows are fetched into lists before numpy sees them: np.array(queryset) would swallow a database
    # error raised while iterating (a lock timeout, a restarting server) and fail later on the shape,
    # so the task would not know to retry.
    if long_form:
        fetched = list(
            submitted.values_list(
                "criterion_id", "assignment__dialogue_id", "unit", "assignment__annotator_id", "value"
            ).order_by()
        )
        rows = _object_rows(fetched)
        aggregated = _object_rows([])
    else:
        rows = _object_rows([])
        aggregated = _object_rows(
            list(
                submitted.values_list("criterion_id", "assignment__dialogue_id", "unit", "value")
                .annotate(n=Count("pk"))
                .order_by()
            )
        )
    gold = _object_rows(
        list(
            gold_counts(project, population)
            .values_list("criterion_id", "dialogue_id", "unit", "value", "count")
            .order_by()
        )
    )
    if len(aggregated):
        gold = np.concatenate([gold, aggregated]) if len(gold) else aggregated
    posts = (
        Post.objects.filter(dialogue__project=project)
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "position", "utterance_block", "speaker", "source_annotated")
    )
    speaker_of_post: dict[tuple[int, int], str] = {}
    speaker_of_block: dict[tuple[int, int], str] = {}
    post_rows: dict[int, list[tuple]] = {}
    for dialogue_id, position, block, speaker, annotated in posts.iterator(chunk_size=20000):
        speaker_of_post[(dialogue_id, position)] = speaker
        speaker_of_block.setdefault((dialogue_id, block), speaker)
        post_rows.setdefault(dialogue_id, []).append((speaker, block, annotated))
    shapes = {d: DialogueShape.of_posts(r) for d, r in post_rows.items()}
    rule = unit_rule(project.preset)
    result = {}
    for criterion in criteria:
        mine = rows[rows[:, 0] == criterion.pk] if len(rows) else rows
        mine_gold = gold[gold[:, 0] == criterion.pk] if len(gold) else gold
        values = _scale_values(criterion)
        value_index = {v: i for i, v in enumerate(values)}
        asked: dict[int, set[int]] = {}

        def is_asked(dialogue_id: int, unit: int, criterion=criterion, asked=asked) -> bool:
            if dialogue_id not in asked:
                shape = shapes.get(dialogue_id, DialogueShape((), ()))
                asked[dialogue_id] = set(required_units(criterion, shape, rule=rule))
            return unit in asked[dialogue_id]

        # Under UnitRule.EVERY every stored judgement is on an asked unit (saves and imports check it).
        if rule != UnitRule.EVERY:
            mine = _only_asked(mine, is_asked)
            mine_gold = _only_asked(mine_gold, is_asked)
        unit_keys = list(
            dict.fromkeys([(d, u) for d, u in mine[:, 1:3].tolist()] + [(d, u) for d, u in mine_gold[:, 1:3].tolist()])
        )
        unit_keys.sort()
        unit_lookup = {key: i for i, key in enumerate(unit_keys)}
        if criterion.unit == Unit.DIALOGUE:
            speakers = [""] * len(unit_keys)
        elif criterion.unit == Unit.TURN:
            speakers = [speaker_of_block.get(key, "") for key in unit_keys]
        else:
            speakers = [speaker_of_post.get(key, "") for key in unit_keys]
        annotators, annotator = np.unique(np.asarray(mine[:, 3], dtype=np.int64), return_inverse=True)
        imported = np.zeros((len(unit_keys), len(values)), dtype=np.int64)
        for _c, d, u, v, c in mine_gold.tolist():
            imported[unit_lookup[(d, u)], value_index[v]] += c
        result[criterion.key] = CriterionJudgements(
            criterion=criterion,
            values=values,
            unit_dialogue=np.array([d for d, _u in unit_keys], dtype=np.int64),
            unit_index=np.array([u for _d, u in unit_keys], dtype=np.int64),
            unit_speaker=np.array(speakers, dtype=object),
            annotators=annotators,
            unit=np.array([unit_lookup[(d, u)] for d, u in mine[:, 1:3].tolist()], dtype=np.int64),
            annotator=annotator.astype(np.int64).reshape(-1),
            value=np.array([value_index[v] for v in mine[:, 4].tolist()], dtype=np.int64),
            unit_counts=imported,
        )
    return result
