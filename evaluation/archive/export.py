"""Writing a project's archive (the selector side: it reads the database and writes nothing).

The same data gives the same bytes (keys in the order the code writes them, and a JSON column's in the order
the database keeps them; fixed member timestamp; rows in the order the database holds them), so importing an
archive and exporting again reproduces it exactly. Keys are not sorted: a JSON column's object (a post's source
metadata...) keeps its order through a restore where the database keeps it (SQLite stores the text; PostgreSQL's
jsonb has an order of its own), so the files written from it (the DBDC gold) come back byte for byte. Large
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
from evaluation.archive.context import Names
from evaluation.archive.fields import fields_export, plain_fields, time_text
from evaluation.archive.parts import batches, judges, quality, settings, studies, webhooks
from evaluation.models import Run, RunStatus
from evaluation.selectors.fingerprint import judgements_fingerprint

POST_FIELDS = (
    "position", "speaker", "text", "utterance_block", "source_turn_index", "source_annotated", "source_meta",
)  # fmt: skip
DIALOGUE_CHUNK = 500  # dialogues whose posts are held at a time
ROW_CHUNK = 20000  # rows a server-side cursor fetches at a time


def _dialogues(project: Project, batch_index: dict[int, int]) -> Iterator[dict]:
    """Every dialogue with its posts, in import order, reading the posts of ``DIALOGUE_CHUNK`` dialogues at a time;
    its import batch by the batch's place in ``import_batches``."""
    rows = project.dialogues.order_by("position", "external_id").values(
        "pk", "external_id", "language", "source_meta", "position", "created_at", "batch_id"
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
                "created_at": time_text(d["created_at"]),
                "batch": batch_index.get(d["batch_id"]),
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


def _removed(removed: dict | None, criterion_key: dict[int, str]) -> dict[str, int]:
    """``Assignment.removed`` keyed by criterion key and unit instead of the criterion's id."""
    out = {}
    for pair, version in (removed or {}).items():
        criterion_id, unit = pair.split(":")
        if int(criterion_id) in criterion_key:
            out[f"{criterion_key[int(criterion_id)]}:{unit}"] = version
    return out


def _assignments(project: Project, external_of: dict[int, str], criterion_key: dict[int, str]) -> Iterator[dict]:
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
            "removed",
            "reopened_at",
            "reopen_reason",
            "reordering__submitted_order",
            "reordering__updated_at",
            "reordering__revision",
            "shown_first",
            "reordering__kept_shown_order",
        )
    )
    for a in rows.iterator(chunk_size=ROW_CHUNK):
        yield {
            "dialogue": external_of[a["dialogue_id"]],
            "annotator": a["annotator__username"],
            "status": a["status"],
            "imported": a["imported"],
            "started_at": time_text(a["started_at"]),
            "submitted_at": time_text(a["submitted_at"]),
            "seconds_spent": a["seconds_spent"],
            "shown_order": a["shown_order"],
            "permutation_set": a["permutation_set"],
            "queue_rank": a["queue_rank"],
            "version": a["version"],
            "removed": _removed(a["removed"], criterion_key),
            "reopened_at": time_text(a["reopened_at"]),
            "reopen_reason": a["reopen_reason"],
            "shown_first": a["shown_first"],
            "reordering": None
            if a["reordering__updated_at"] is None
            else {
                "submitted_order": a["reordering__submitted_order"],
                "updated_at": time_text(a["reordering__updated_at"]),
                "kept_shown_order": a["reordering__kept_shown_order"],
                "revision": a["reordering__revision"],
            },
        }


def _judgements(project: Project, criterion_key: dict[int, str]) -> Iterator[list]:
    """Every judgement as [its assignment's place in the archive, criterion key, unit, value, extra, time,
    revision, the candidate shown first ("" but on comparison items)]."""
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
        .values_list("assignment_id", "criterion_id", "unit", "value", "extra", "updated_at", "revision", "shown_first")
        .iterator(chunk_size=ROW_CHUNK)
    )
    while batch := list(islice(rows, ROW_CHUNK)):
        places = np.searchsorted(assignment_ids, [row[0] for row in batch]).tolist()
        for place, (_assignment_id, criterion_id, unit, value, extra, updated_at, revision, shown) in zip(
            places, batch
        ):
            yield [place, criterion_key[criterion_id], unit, value, extra, time_text(updated_at), revision, shown]


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
    """Each run with its files and scores; ``gold_current`` says whether the scores were computed against the gold
    the archive holds (a restore keeps them current), or against an earlier one (a restore scores them again)."""
    fingerprint = judgements_fingerprint(project)
    for r in Run.objects.filter(project=project).order_by("pk").iterator(chunk_size=1):  # one run's scores at a time
        yield {
            "gold_current": r.status == RunStatus.SCORED and r.gold_fingerprint == fingerprint,
            "name": r.name,
            "kind": r.kind,
            "status": r.status,
            "error": r.error,
            "source": None if r.source is None else base64.b64encode(bytes(r.source)).decode("ascii"),
            "source_name": r.source_name,
            "options": r.options,
            "scores": r.scores,
            "per_dialogue": r.per_dialogue,
            "created_at": time_text(r.created_at),
            "scored_at": time_text(r.scored_at),
        }


PARTS = (batches, settings, quality, studies, judges, webhooks)  # beside the dialogues and judgements


def project_archive_data(project: Project, *, lazy: bool = False) -> dict:
    """The archive's document: plain JSON data, rows in database order.

    With ``lazy`` the dialogues, assignments, judgements, gold counts, runs and judges' labels are ``LazyList``s
    read as the document is written (``project_archive_chunks``): the memory held is a chunk of rows, the
    dialogues' external ids and an array of the assignments' ids, whatever the size of the project.
    """
    rows = LazyList if lazy else list
    criteria = list(project.criteria.order_by("position", "key").values(*plain_fields(Criterion)))
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
        .order_by("user_id")  # the accounts' order: a restore creates them in it, and figures list people so
        .values("user__username", "role", "imported", "source_key", "rank", "active")
    ]
    external_of = dict(project.dialogues.values_list("pk", "external_id"))
    names = Names(project=project, external_of=external_of, criterion_key=criterion_key, lazy=lazy)
    document = {
        "format": ARCHIVE_FORMAT,
        "version": ARCHIVE_VERSION,
        "project": fields_export(Project.objects.filter(pk=project.pk).values().get(), plain_fields(Project)),
        "criteria": criteria,
        "members": members,
    }
    for part in PARTS:
        document |= part.export(names)  # the batches first: the dialogues name theirs by place
    document |= {
        "dialogues": rows(_dialogues(project, names.batch_index)),
        "assignments": rows(_assignments(project, external_of, criterion_key)),
        "judgements": rows(_judgements(project, criterion_key)),
        "gold_counts": rows(_gold_counts(project, external_of, criterion_key)),
        "runs": rows(_runs(project)),
    }
    return document


ARCHIVE_JSON = {"ensure_ascii": False, "separators": (",", ":"), "allow_nan": False}


def project_archive_chunks(project: Project) -> Iterator[bytes]:
    """The archive (a zip holding ``archive.json``) as it is written; the same data gives the same bytes."""
    return zip_chunks([(ARCHIVE_MEMBER, lambda: json_chunks(project_archive_data(project, lazy=True), **ARCHIVE_JSON))])


def project_archive(project: Project) -> bytes:
    """The archive as zip bytes: the same data gives the same bytes."""
    return b"".join(project_archive_chunks(project))
