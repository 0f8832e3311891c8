"""Reads shared by the per-annotator exporters: posts, submitted assignments and their judgements."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence

from annotator.models import Membership, Post, Project
from annotator.selectors.population import Population, gold_dialogues, gold_judgements

DIALOGUE_CHUNK = 500  # dialogues whose rows an export holds at a time


def gold_dialogue_chunks(project: Project, population: Population | None = None) -> Iterator[list[tuple]]:
    """The gold dialogues in import order as lists of at most ``DIALOGUE_CHUNK`` (id, external id, source meta)."""
    rows = (
        gold_dialogues(project, population).order_by("position", "pk").values_list("pk", "external_id", "source_meta")
    )
    chunk: list[tuple] = []
    for row in rows.iterator(chunk_size=DIALOGUE_CHUNK):
        chunk.append(row)
        if len(chunk) == DIALOGUE_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def posts_by_dialogue(project: Project, dialogue_ids: Sequence[int] | None = None) -> dict[int, list[tuple]]:
    """dialogue id -> [(position, speaker, text, block, source_turn_index, source_meta)] in order (of
    ``dialogue_ids`` only, if given)."""
    result: dict[int, list[tuple]] = defaultdict(list)
    posts = Post.objects.filter(dialogue__project=project)
    if dialogue_ids is not None:
        posts = posts.filter(dialogue_id__in=list(dialogue_ids))
    rows = posts.order_by("dialogue_id", "position").values_list(
        "dialogue_id", "position", "speaker", "text", "utterance_block", "source_turn_index", "source_meta"
    )
    for dialogue_id, *rest in rows if dialogue_ids is not None else rows.iterator(chunk_size=5000):
        result[dialogue_id].append(tuple(rest))
    return result


def annotator_names(project: Project) -> dict[int, tuple[int, str]]:
    """user id -> (export rank, the id the annotator has in exports: the source's id or the username)."""
    rows = Membership.objects.filter(project=project).values_list("user_id", "rank", "source_key", "user__username")
    return {user_id: (rank, source_key or username) for user_id, rank, source_key, username in rows}


def judgements_by_assignment(
    project: Project,
    dialogue_ids: Sequence[int] | None = None,
    *,
    population: Population | None = None,
    ranks: dict[int, tuple[int, str]] | None = None,
) -> tuple[dict[int, list[int]], dict[int, list[tuple]]]:
    """(dialogue id -> submitted assignment ids in annotator export order,
    assignment id -> [(criterion key, unit, value, extra)] in insertion order), of ``dialogue_ids`` if given."""
    ranks = annotator_names(project) if ranks is None else ranks
    judgements = gold_judgements(project, population)
    if dialogue_ids is not None:
        judgements = judgements.filter(assignment__dialogue_id__in=list(dialogue_ids))
    rows = judgements.order_by("pk").values_list(
        "assignment_id",
        "assignment__dialogue_id",
        "assignment__annotator_id",
        "criterion__key",
        "unit",
        "value",
        "extra",
    )
    by_assignment: dict[int, list[tuple]] = defaultdict(list)
    assignment_rank: dict[int, tuple[int, int]] = {}
    dialogue_of: dict[int, int] = {}
    # one chunk of dialogues is read whole (not through a server-side cursor, for which PostgreSQL plans to
    # return the first rows fast: here, walking every judgement of the project in id order for each chunk)
    fetched = rows if dialogue_ids is not None else rows.iterator(chunk_size=20000)
    for assignment_id, dialogue_id, annotator_id, key, unit, value, extra in fetched:
        by_assignment[assignment_id].append((key, unit, value, extra))
        assignment_rank[assignment_id] = (ranks.get(annotator_id, (1 << 30, ""))[0], annotator_id)
        dialogue_of[assignment_id] = dialogue_id
    per_dialogue: dict[int, list[int]] = defaultdict(list)
    for assignment_id in sorted(assignment_rank, key=lambda a: (dialogue_of[a], assignment_rank[a])):
        per_dialogue[dialogue_of[assignment_id]].append(assignment_id)
    return per_dialogue, by_assignment
