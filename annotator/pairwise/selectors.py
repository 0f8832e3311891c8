"""What the comparisons of a pairwise project say so far: the votes, per criterion, in system terms, and whether
the collection should go on (the stop rule the active hand-out and the dashboard share)."""

from __future__ import annotations

from django.db.models import Count
from django.db.models.functions import Length

from annotator.models import Assignment, Candidate, PairwiseSettings, Project
from annotator.pairwise.models import TieModel
from annotator.selectors.population import gold_judgements, population_of
from scoring.pairwise import PairwiseVotes, collection_state, sandwich_intervals

STOP_INTERVAL = "sandwich_ci"  # the stop rule reads the sandwich intervals: cheap enough for every hand-out


def pairwise_settings(project: Project) -> PairwiseSettings:
    """The project's comparison settings (the defaults when it has none saved)."""
    return PairwiseSettings.objects.filter(project=project).first() or PairwiseSettings(project=project)


def project_systems(project: Project) -> list[str]:
    """Every system of the project's candidates, sorted."""
    return sorted(set(Candidate.objects.filter(dialogue__project=project).values_list("system", flat=True)))


def item_candidates(project: Project) -> dict[int, tuple[str, str, int, int]]:
    """item (dialogue) id -> (system A, system B, length of A, length of B)."""
    rows = (
        Candidate.objects.filter(dialogue__project=project)
        .annotate(length=Length("text"))
        .order_by("dialogue_id", "slot")
        .values_list("dialogue_id", "system", "length")
    )
    pairs: dict[int, list] = {}
    for dialogue_id, system, length in rows:
        pairs.setdefault(dialogue_id, []).append((system, length))
    return {d: (c[0][0], c[1][0], c[0][1], c[1][1]) for d, c in pairs.items() if len(c) == 2}


def comparison_vote_records(project: Project, items: dict | None = None) -> dict[str, list[dict]]:
    """criterion key -> the submitted votes that count (``gold_judgements``) as ``PairwiseVotes.from_records``
    takes them: ``{"a", "b", "winner", "shown_first", "item", "len_a", "len_b"}`` (no ``shown_first`` when the
    order is unknown, as for imported votes that did not record it)."""
    items = item_candidates(project) if items is None else items
    records: dict[str, list[dict]] = {key: [] for key in project.criteria.values_list("key", flat=True)}
    rows = gold_judgements(project, population_of(project)).values_list(
        "criterion__key", "assignment__dialogue_id", "value", "shown_first"
    )
    for key, dialogue_id, value, shown in rows.order_by("pk"):
        if dialogue_id not in items:
            continue
        a, b, len_a, len_b = items[dialogue_id]
        record = {"a": a, "b": b, "winner": {"a": a, "b": b}.get(value, value), "item": dialogue_id}
        record |= {"len_a": len_a, "len_b": len_b}
        if shown in ("a", "b"):
            record["shown_first"] = a if shown == "a" else b
        records[key].append(record)
    return records


def handed_out(project: Project) -> int:
    """The comparisons the project's own annotators were given (submitted or not): what the budget counts."""
    return Assignment.objects.filter(
        dialogue__project=project, imported=False, dialogue__quality_item__isnull=True
    ).aggregate(n=Count("pk"))["n"]


def collection_status(project: Project, records: list[dict] | None = None) -> dict:
    """Whether to keep collecting votes (``scoring.pairwise.collection_state``, on the sandwich intervals of the
    first criterion): ``{"state": "collecting" | "separated" | "budget_spent", "reason", "votes_used", "budget",
    "overlapping", "active", "unvoted"}``; ``votes_used`` counts the comparisons handed out. The ranking is
    separated only once every system of the project has votes (``unvoted`` lists those without)."""
    settings = pairwise_settings(project)
    if records is None:
        first = project.criteria.order_by("position").values_list("key", flat=True).first()
        records = comparison_vote_records(project).get(first, []) if first else []
    used = handed_out(project)
    if records:
        votes = PairwiseVotes.from_records(records)
        intervals = sandwich_intervals(votes, ties=settings.ties or TieModel.HALF)
        state = collection_state(intervals, used, settings.vote_budget, votes=votes)
    else:
        state = collection_state({"systems": []}, used, settings.vote_budget)
    unvoted = sorted(set(project_systems(project)) - {r[side] for r in records for side in ("a", "b")})
    if unvoted and state["state"] == "separated":  # a system without votes is not ranked, let alone separated
        state |= {"state": "collecting", "reason": f"{len(unvoted)} systems have no votes yet"}
    return state | {"active": settings.active_pairs, "unvoted": unvoted}
