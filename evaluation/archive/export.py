"""Writing a project's archive (the selector side: it reads the database and writes nothing).

The same data gives the same bytes (sorted keys, fixed member timestamp, rows in the order the
database holds them), so importing an archive and exporting again reproduces it exactly. Large
parts are read a chunk of rows at a time as the zip is streamed (``project_archive_chunks``).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from itertools import islice

import numpy as np

from annotator.exporters.stream import LazyList, json_chunks, zip_chunks
from annotator.models import Assignment, Candidate, Criterion, GoldCount, Judgement, Membership, Post, Project
from evaluation.archive import ARCHIVE_FORMAT, ARCHIVE_MEMBER, ARCHIVE_VERSION
from evaluation.models import Run


def _time(value) -> str | None:
    return None if value is None else value.isoformat()


POST_FIELDS = (
    "position", "speaker", "text", "utterance_block", "source_turn_index", "source_annotated", "source_meta",
)  # fmt: skip
DIALOGUE_CHUNK = 500  # dialogues whose posts are held at a time
ROW_CHUNK = 20000  # rows a server-side cursor fetches at a time


def _dialogues(project: Project) -> Iterator[dict]:
    """Every dialogue with its posts, in import order, reading the posts of ``DIALOGUE_CHUNK`` dialogues at a time."""
    rows = project.dialogues.order_by("position", "external_id").values(
        "pk", "external_id", "language", "source_meta", "position", "created_at"
    )
    chunk: list[dict] = []

    def flush(chunk: list[dict]) -> Iterator[dict]:
        posts: dict[int, list[dict]] = {}
        for post in (
            Post.objects.filter(dialogue_id__in=[d["pk"] for d in chunk])
            .order_by("dialogue_id", "position")
            .values("dialogue_id", *POST_FIELDS)
        ):
            posts.setdefault(post.pop("dialogue_id"), []).append(post)
        candidates: dict[int, list[dict]] = {}
        for c in (
            Candidate.objects.filter(dialogue_id__in=[d["pk"] for d in chunk])
            .order_by("dialogue_id", "slot")
            .values("dialogue_id", "system", "text")
        ):
            candidates.setdefault(c.pop("dialogue_id"), []).append(c)
        for d in chunk:
            dialogue = {
                "external_id": d["external_id"],
                "language": d["language"],
                "source_meta": d["source_meta"],
                "position": d["position"],
                "created_at": _time(d["created_at"]),
                "posts": posts.get(d["pk"], []),
            }
            if d["pk"] in candidates:  # a comparison item: its two responses, A then B
                dialogue["candidates"] = candidates[d["pk"]]
            yield dialogue

    for d in rows.iterator(chunk_size=DIALOGUE_CHUNK):
        chunk.append(d)
        if len(chunk) == DIALOGUE_CHUNK:
            yield from flush(chunk)
            chunk = []
    if chunk:
        yield from flush(chunk)


def _assignments(project: Project, external_of: dict[int, str]) -> Iterator[dict]:
    rows = (
        Assignment.objects.filter(dialogue__project=project)
        .order_by("pk")
        .values(
            "dialogue_id",
            "annotator__username",
            "status",
            "imported",
            "started_at",
            "submitted_at",
            "seconds_spent",
            "shown_order",
            "permutation_set",
            "queue_rank",
            "version",
            "reopen_reason",
            "reordering__submitted_order",
            "reordering__updated_at",
            "shown_first",
            "reordering__kept_shown_order",
        )
    )
    for a in rows.iterator(chunk_size=ROW_CHUNK):
        comparison = {"shown_first": a["shown_first"]} if a["shown_first"] else {}
        yield comparison | {
            "dialogue": external_of[a["dialogue_id"]],
            "annotator": a["annotator__username"],
            "status": a["status"],
            "imported": a["imported"],
            "started_at": _time(a["started_at"]),
            "submitted_at": _time(a["submitted_at"]),
            "seconds_spent": a["seconds_spent"],
            "shown_order": a["shown_order"],
            "permutation_set": a["permutation_set"],
            "queue_rank": a["queue_rank"],
            "version": a["version"],
            "reopen_reason": a["reopen_reason"],
            "reordering": None
            if a["reordering__updated_at"] is None
            else {
                "submitted_order": a["reordering__submitted_order"],
                "updated_at": _time(a["reordering__updated_at"]),
                "kept_shown_order": a["reordering__kept_shown_order"],
            },
        }


def _judgements(project: Project, criterion_key: dict[int, str]) -> Iterator[list]:
    """Every judgement as [its assignment's place in the archive, criterion key, unit, value, extra, time], and
    on a comparison item the candidate shown first as a seventh element when it is known."""
    # an assignment's place is the rank of its id among the project's (an array, not a dictionary of them)
    assignment_ids = np.fromiter(
        Assignment.objects.filter(dialogue__project=project)
        .order_by("pk")
        .values_list("pk", flat=True)
        .iterator(chunk_size=ROW_CHUNK),
        dtype=np.int64,
    )
    rows = (
        Judgement.objects.filter(assignment__dialogue__project=project)
        .order_by("pk")
        .values_list("assignment_id", "criterion_id", "unit", "value", "extra", "updated_at", "shown_first")
        .iterator(chunk_size=ROW_CHUNK)
    )
    while batch := list(islice(rows, ROW_CHUNK)):
        places = np.searchsorted(assignment_ids, [row[0] for row in batch]).tolist()
        for place, (_assignment_id, criterion_id, unit, value, extra, updated_at, shown) in zip(places, batch):
            yield [place, criterion_key[criterion_id], unit, value, extra, _time(updated_at)] + (
                [shown] if shown else []
            )


def _gold_counts(project: Project, external_of: dict[int, str], criterion_key: dict[int, str]) -> Iterator[list]:
    rows = (
        GoldCount.objects.filter(dialogue__project=project)
        .order_by("pk")
        .values_list("dialogue_id", "criterion_id", "unit", "value", "count", "n_annotators")
        .iterator(chunk_size=ROW_CHUNK)
    )
    for dialogue_id, criterion_id, unit, value, count, n in rows:
        yield [external_of[dialogue_id], criterion_key[criterion_id], unit, value, count, n]


def _runs(project: Project) -> Iterator[dict]:
    for r in Run.objects.filter(project=project).order_by("pk").iterator(chunk_size=1):  # one run's scores at a time
        yield {
            "name": r.name,
            "kind": r.kind,
            "status": r.status,
            "error": r.error,
            "source": None if r.source is None else base64.b64encode(bytes(r.source)).decode("ascii"),
            "source_name": r.source_name,
            "options": r.options,
            "scores": r.scores,
            "per_dialogue": r.per_dialogue,
            "created_at": _time(r.created_at),
            "scored_at": _time(r.scored_at),
        }


def project_archive_data(project: Project, *, lazy: bool = False) -> dict:
    """The archive's document: plain JSON data, rows in database order.

    With ``lazy`` the dialogues, assignments, judgements, gold counts and runs are ``LazyList``s read as the
    document is written (``project_archive_chunks``): the memory held is a chunk of rows, the dialogues'
    external ids and an array of the assignments' ids, whatever the size of the project.
    """
    rows = LazyList if lazy else list
    criteria = list(
        project.criteria.order_by("position", "key").values(
            "key", "label", "question", "unit", "values", "level", "speaker", "applies_to", "not_applicable", "position"
        )
    )
    criterion_key = dict(Criterion.objects.filter(project=project).values_list("pk", "key"))
    members = [
        {
            "username": m["user__username"],
            "role": m["role"],
            "imported": m["imported"],
            "source_key": m["source_key"],
            "rank": m["rank"],
            "active": m["active"],
        }
        for m in Membership.objects.filter(project=project)
        .order_by("rank", "user__username")
        .values("user__username", "role", "imported", "source_key", "rank", "active")
    ]
    external_of = dict(project.dialogues.values_list("pk", "external_id"))
    dialogues = rows(_dialogues(project))
    assignments = rows(_assignments(project, external_of))
    judgements = rows(_judgements(project, criterion_key))
    gold_counts = rows(_gold_counts(project, external_of, criterion_key))
    runs = rows(_runs(project))
    return {
        "format": ARCHIVE_FORMAT,
        "version": ARCHIVE_VERSION,
        "project": {
            "name": project.name,
            "slug": project.slug,
            "preset": project.preset,
            "guidelines": project.guidelines,
            "annotators_per_dialogue": project.annotators_per_dialogue,
            "scheme": project.scheme,
            "scheme_version": project.scheme_version,
            "created_at": _time(project.created_at),
        },
        "criteria": criteria,
        "members": members,
        "dialogues": dialogues,
        "assignments": assignments,
        "judgements": judgements,
        "gold_counts": gold_counts,
        "runs": runs,
    }


ARCHIVE_JSON = {"ensure_ascii": False, "sort_keys": True, "separators": (",", ":"), "allow_nan": False}


def project_archive_chunks(project: Project) -> Iterator[bytes]:
    """The archive (a zip holding ``archive.json``) as it is written; the same data gives the same bytes."""
    return zip_chunks([(ARCHIVE_MEMBER, lambda: json_chunks(project_archive_data(project, lazy=True), **ARCHIVE_JSON))])


def project_archive(project: Project) -> bytes:
    """The archive as zip bytes: the same data gives the same bytes."""
    return b"".join(project_archive_chunks(project))
