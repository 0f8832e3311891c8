"""Reads shared by the per-annotator exporters: posts, submitted assignments and their judgements."""

from __future__ import annotations

from collections import defaultdict

from annotator.models import Membership, Post, Project
from annotator.selectors.population import gold_judgements


def posts_by_dialogue(project: Project) -> dict[int, list[tuple]]:
    """dialogue id -> [(position, speaker, text, block, source_turn_index, source_meta)] in order."""
    result: dict[int, list[tuple]] = defaultdict(list)
    rows = (
        Post.objects.filter(dialogue__project=project)
        .order_by("dialogue_id", "position")
        .values_list(
            "dialogue_id", "position", "speaker", "text", "utterance_block", "source_turn_index", "source_meta"
        )
    )
    for dialogue_id, *rest in rows.iterator(chunk_size=5000):
        result[dialogue_id].append(tuple(rest))
    return result


def annotator_names(project: Project) -> dict[int, tuple[int, str]]:
    """user id -> (export rank, the id the annotator has in exports: the source's id or the username)."""
    rows = Membership.objects.filter(project=project).values_list("user_id", "rank", "source_key", "user__username")
    return {user_id: (rank, source_key or username) for user_id, rank, source_key, username in rows}


def judgements_by_assignment(project: Project) -> tuple[dict[int, list[int]], dict[int, list[tuple]]]:
    """(dialogue id -> submitted assignment ids in annotator export order,
    assignment id -> [(criterion key, unit, value, extra)] in insertion order)."""
    ranks = annotator_names(project)
    rows = (
        gold_judgements(project)
        .order_by("pk")
        .values_list(
            "assignment_id",
            "assignment__dialogue_id",
            "assignment__annotator_id",
            "criterion__key",
            "unit",
            "value",
            "extra",
        )
    )
    by_assignment: dict[int, list[tuple]] = defaultdict(list)
    assignment_rank: dict[int, tuple[int, int]] = {}
    dialogue_of: dict[int, int] = {}
    for assignment_id, dialogue_id, annotator_id, key, unit, value, extra in rows.iterator(chunk_size=20000):
        by_assignment[assignment_id].append((key, unit, value, extra))
        assignment_rank[assignment_id] = (ranks.get(annotator_id, (1 << 30, ""))[0], annotator_id)
        dialogue_of[assignment_id] = dialogue_id
    per_dialogue: dict[int, list[int]] = defaultdict(list)
    for assignment_id in sorted(assignment_rank, key=lambda a: (dialogue_of[a], assignment_rank[a])):
        per_dialogue[dialogue_of[assignment_id]].append(assignment_id)
    return per_dialogue, by_assignment
