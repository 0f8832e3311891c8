"""Importing existing ratings (long form, ``annotator.importers.ratings``) into a project's dialogues, all or
nothing.

Every line is checked first (the item is one of the project's dialogues, the criterion one of its
criteria, the unit one the criterion asks about, the value on its scale or its "not applicable" answer, no
rating given twice, no rater who already has answers on the item), then everything is written in one
transaction: each rater becomes an imported annotator (kept under their id), with a submitted, imported
assignment per item they rated, exactly as ratings that come with a collection.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotator import events
from annotator.importers.ratings import ParsedRating, read_ratings
from annotator.models import Assignment, Criterion, Membership, Project
from annotator.selectors.structure import project_shapes
from annotator.services.imports.annotators import imported_annotators_create
from annotator.services.imports.copy_rows import assignments_insert, judgements_insert
from annotator.services.imports.dialogues import planner_statistics_refresh
from annotator.units import UnitError, check_value, unit_speaker
from scoring.errors import N_, InputError


@dataclass(frozen=True)
class RatingsReport:
    ratings: int
    items: int
    annotators_created: int


class _Checker:
    def __init__(self, project: Project):
        self.project = project
        self.criteria: dict[str, Criterion] = {c.key: c for c in project.criteria.all()}
        self.dialogues: dict[str, int] = dict(project.dialogues.values_list("external_id", "pk"))
        self.shapes = project_shapes(project.pk)
        self.members: dict[str, int] = dict(
            Membership.objects.filter(project=project, imported=True).values_list("source_key", "user_id")
        )
        self.judged: set[tuple[int, int]] = set(
            Assignment.objects.filter(
                dialogue__project=project, annotator_id__in=list(self.members.values())
            ).values_list("annotator_id", "dialogue_id")
        )
        self.seen: set[tuple[str, str, str, int]] = set()

    def check(self, r: ParsedRating) -> tuple[int, int]:
        """(dialogue id, criterion id) of a rating that fits the project; ``InputError`` (file, line, field) if not."""
        dialogue_id = self.dialogues.get(r.item)
        if dialogue_id is None:
            raise r.line.error(N_("%(item)s is no dialogue of this project"), "item", item=repr(r.item))
        criterion = self.criteria.get(r.criterion)
        if criterion is None:
            raise r.line.error(
                N_("%(key)s is no criterion of this project (its criteria: %(keys)s)"),
                "criterion",
                key=repr(r.criterion),
                keys=", ".join(self.criteria),
            )
        try:
            speaker = unit_speaker(criterion, r.unit, self.shapes[dialogue_id])
        except UnitError as exc:
            raise r.line.error(N_("%(problem)s"), "unit", problem=str(exc)) from None
        try:
            check_value(criterion, speaker, r.value)
        except UnitError as exc:
            raise r.line.error(N_("%(problem)s"), "value", problem=str(exc)) from None
        key = (r.annotator, r.item, r.criterion, r.unit)
        if key in self.seen:
            raise r.line.error(N_("annotator %(annotator)s rated this unit twice"), "annotator", annotator=r.annotator)
        self.seen.add(key)
        user_id = self.members.get(r.annotator)
        if user_id is not None and (user_id, dialogue_id) in self.judged:
            raise r.line.error(
                N_("annotator %(annotator)s already has answers on %(item)s in this project"),
                "annotator",
                annotator=r.annotator,
                item=r.item,
            )
        return dialogue_id, criterion.pk


def annotations_import(*, project: Project, path: Path | str, display: str | None = None) -> RatingsReport:
    """Import the ratings of a long-form JSON lines file into ``project``, or nothing (``InputError`` naming the
    file, the line and the field)."""
    path = Path(path)
    display = display or str(path)
    checker = _Checker(project)
    rows: list[tuple[str, int, int, int, str]] = []  # (annotator, dialogue id, criterion id, unit, value)
    with open(path, "rb") as fh:
        for rating in read_ratings(fh, display):
            dialogue_id, criterion_id = checker.check(rating)
            rows.append((rating.annotator, dialogue_id, criterion_id, rating.unit, rating.value))
    if not rows:
        raise InputError(display, N_("contains no ratings"))
    now = timezone.now()
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()  # one import at a time
        members = dict(Membership.objects.filter(project=project, imported=True).values_list("source_key", "user_id"))
        missing = [a for a in dict.fromkeys(r[0] for r in rows) if a not in members]
        rank = (Membership.objects.filter(project=project).aggregate(m=Max("rank"))["m"] or 0) + 1
        members |= imported_annotators_create(project=project, keys=missing, first_rank=rank)
        pairs = list(dict.fromkeys((members[a], d) for a, d, _c, _u, _v in rows))
        ids = dict(zip(pairs, assignments_insert(pairs, now)))
        by_assignment = defaultdict(list)
        for annotator, dialogue_id, criterion_id, unit, value in rows:
            by_assignment[ids[(members[annotator], dialogue_id)]].append((criterion_id, unit, value))
        judgements_insert(
            [(a, c, u, v, None, "") for a, given in by_assignment.items() for c, u, v in given],
            now,
        )
        events.population_changed(project_id=project.pk, reason="import")
    planner_statistics_refresh()
    return RatingsReport(len(rows), len({d for _a, d, _c, _u, _v in rows}), len(missing))
