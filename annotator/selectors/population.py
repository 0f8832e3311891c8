"""Whose judgements count: the population behind a project's gold data and statistics.

Judgements count when they are submitted, on an ordinary dialogue (not a control or training
item), by an annotator the lead has not excluded, and from the source the lead chose (imported
annotators, the project's own, or both). ``judgement_arrays`` (and through it gold distributions,
agreement, run scoring and the distribution exports) and the per-annotator exports read through
``gold_judgements``; the statistics' fingerprint includes ``population_digest`` so that a change of
the population recomputes them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db.models import Count, Max, QuerySet

from annotator.models import (
    Adjudication,
    AnnotatorExclusion,
    Assignment,
    AssignmentStatus,
    Dialogue,
    GoldCount,
    Judgement,
    Membership,
    Project,
    QualityItem,
    QualitySettings,
    SourceFilter,
)


@dataclass(frozen=True)
class Population:
    source: str
    excluded: tuple[int, ...]  # user ids
    quality_dialogues: tuple[int, ...]  # control and training items


def population_of(project: Project) -> Population:
    source = QualitySettings.objects.filter(project=project).values_list("source", flat=True).first()
    excluded = AnnotatorExclusion.objects.filter(project=project).order_by("user_id").values_list("user_id", flat=True)
    items = (
        QualityItem.objects.filter(dialogue__project=project)
        .order_by("dialogue_id")
        .values_list("dialogue_id", flat=True)
    )
    return Population(source or SourceFilter.ALL.value, tuple(excluded), tuple(items))  # plain str, as stored


def gold_judgements(project: Project, population: Population | None = None) -> QuerySet[Judgement]:
    """The submitted judgements that make the project's gold data and statistics."""
    population = population or population_of(project)
    # criteria belong to the project: filtering on them avoids joining the dialogues
    rows = Judgement.objects.filter(criterion__project=project, assignment__status=AssignmentStatus.SUBMITTED)
    return _counted(rows, population, through="assignment__")


def gold_assignments(project: Project, population: Population | None = None) -> QuerySet[Assignment]:
    """The submitted assignments whose judgements ``gold_judgements`` reads (the same filters, a row per item)."""
    population = population or population_of(project)
    rows = Assignment.objects.filter(dialogue__project=project, status=AssignmentStatus.SUBMITTED)
    return _counted(rows, population)


def _counted(rows: QuerySet, population: Population, through: str = "") -> QuerySet:
    """``rows`` (assignments, or rows reaching them ``through`` a relation) without quality items, excluded
    annotators and the source the filter leaves out: the one definition of what counts."""
    if population.quality_dialogues:
        rows = rows.exclude(**{f"{through}dialogue_id__in": population.quality_dialogues})
    if population.excluded:
        rows = rows.exclude(**{f"{through}annotator_id__in": population.excluded})
    if population.source == SourceFilter.IMPORTED:
        rows = rows.filter(**{f"{through}imported": True})
    elif population.source == SourceFilter.OWN:
        rows = rows.filter(**{f"{through}imported": False})
    return rows


def gold_counts(project: Project, population: Population | None = None) -> QuerySet[GoldCount]:
    """Counts published without annotators (NLPCC): part of the imported source's data."""
    population = population or population_of(project)
    rows = GoldCount.objects.filter(dialogue__project=project)
    if population.source == SourceFilter.OWN:
        return rows.none()
    if population.quality_dialogues:
        rows = rows.exclude(dialogue_id__in=population.quality_dialogues)
    return rows


def gold_dialogues(project: Project, population: Population | None = None) -> QuerySet[Dialogue]:
    """The dialogues gold data is about: all but control and training items."""
    population = population or population_of(project)
    return project.dialogues.exclude(pk__in=population.quality_dialogues)


def population_digest(project: Project, population: Population | None = None) -> str:
    """Changes whenever the population or an adjudication changes (part of the statistics' fingerprint)."""
    population = population or population_of(project)
    adjudications = Adjudication.objects.filter(dialogue__project=project).aggregate(
        n=Count("pk"), last=Max("updated_at"), last_id=Max("pk")
    )
    answers = QualityItem.objects.filter(dialogue__project=project).aggregate(last=Max("updated_at"))
    settings = QualitySettings.objects.filter(project=project).values_list("updated_at", flat=True).first()
    checked = {}
    if population.quality_dialogues:  # answers on control and training items feed control accuracy
        checked = Assignment.objects.filter(
            dialogue_id__in=population.quality_dialogues, status=AssignmentStatus.SUBMITTED
        ).aggregate(n=Count("pk"), last=Max("submitted_at"))
    text = (
        f"{population.source}|{population.excluded}|{population.quality_dialogues}|{answers['last']}|{settings}|"
        f"{checked.get('n')}|{checked.get('last')}|"
        f"{adjudications['n']}|{adjudications['last']}|{adjudications['last_id']}"
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class AnnotatorsIncluded:
    """Who the gold data and statistics cover, by their export id (the source's id or the username)."""

    source: str
    included: list[str]
    excluded: list[dict]  # {"annotator", "reason"}


def annotators_included(
    project: Project, population: Population | None = None, *, by: str = "export", judged: set[int] | None = None
) -> AnnotatorsIncluded:
    """Included annotators by their export id (``by="export"``: the source's id or the username) or username.

    ``judged``: the user ids with judgements that count, when the caller has read them already (the
    statistics have them as arrays; finding them again reads every judgement).
    """
    population = population or population_of(project)
    names = {
        user_id: (source_key or username) if by == "export" else username
        for user_id, source_key, username in Membership.objects.filter(project=project).values_list(
            "user_id", "source_key", "user__username"
        )
    }
    ranks = dict(Membership.objects.filter(project=project).values_list("user_id", "rank"))
    if judged is None:
        judged = set(
            gold_judgements(project, population)
            .values_list("assignment__annotator_id", flat=True)
            .distinct()
            .order_by()
        )
    excluded = [
        {"annotator": names.get(user_id, username), "reason": reason}
        for user_id, username, reason in AnnotatorExclusion.objects.filter(project=project)
        .order_by("user__username")
        .values_list("user_id", "user__username", "reason")
    ]
    included = [names.get(u, str(u)) for u in sorted(judged, key=lambda u: (ranks.get(u, 0), u))]
    return AnnotatorsIncluded(population.source, included, excluded)
