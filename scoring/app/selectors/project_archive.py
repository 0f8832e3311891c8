"""A project's full archive, for backup and for moving it to another instance.

The community formats (``annotator.exporters``) keep what the research needs; the archive keeps
everything a team would lose without it: the project and its criteria and guidelines, the members
(by username) with their roles, every dialogue and post with the source metadata, every assignment
with its times, status and queue position, every judgement (submitted or draft) with its time, the
reorderings, the published gold counts, and the runs with their scores (and, for a run not scored
yet, its uploaded files). Derived statistics are not kept: they are recomputed on the first visit
of the dashboard.

The archive is a zip holding one ``archive.json``; the same data gives the same bytes (sorted keys,
fixed member timestamp, rows in the order the database holds them), so importing an archive and
exporting again reproduces it exactly. Nothing refers to a database id: dialogues by their external
id, people by username, criteria by key, assignments by their position in the archive.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile

from annotator.models import Assignment, Criterion, GoldCount, Judgement, Membership, Post, Project
from scoring.app.models import Run

ARCHIVE_FORMAT = "dialeval-project-archive"
ARCHIVE_VERSION = 1
ARCHIVE_MEMBER = "archive.json"


def _time(value) -> str | None:
    return None if value is None else value.isoformat()


def project_archive_data(project: Project) -> dict:
    """The archive's document: plain JSON data, rows in database order."""
    criteria = list(
        project.criteria.order_by("position", "key").values(
            "key", "label", "question", "unit", "values", "level", "speaker", "position"
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
    dialogues = []
    external_of: dict[int, str] = {}
    posts: dict[int, list[dict]] = {}
    for post in (
        Post.objects.filter(dialogue__project=project)
        .order_by("dialogue_id", "position")
        .values(
            "dialogue_id",
            "position",
            "speaker",
            "text",
            "utterance_block",
            "source_turn_index",
            "source_annotated",
            "source_meta",
        )
        .iterator(chunk_size=5000)
    ):
        posts.setdefault(post.pop("dialogue_id"), []).append(post)
    for d in project.dialogues.order_by("position", "external_id").values(
        "pk", "external_id", "language", "source_meta", "position", "created_at"
    ):
        external_of[d["pk"]] = d["external_id"]
        dialogues.append(
            {
                "external_id": d["external_id"],
                "language": d["language"],
                "source_meta": d["source_meta"],
                "position": d["position"],
                "created_at": _time(d["created_at"]),
                "posts": posts.get(d["pk"], []),
            }
        )
    assignments = []
    index_of: dict[int, int] = {}
    for a in (
        Assignment.objects.filter(dialogue__project=project)
        .order_by("pk")
        .values(
            "pk",
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
        )
    ):
        index_of[a["pk"]] = len(assignments)
        assignments.append(
            {
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
                },
            }
        )
    judgements = [
        [index_of[assignment_id], criterion_key[criterion_id], unit, value, extra, _time(updated_at)]
        for assignment_id, criterion_id, unit, value, extra, updated_at in Judgement.objects.filter(
            assignment__dialogue__project=project
        )
        .order_by("pk")
        .values_list("assignment_id", "criterion_id", "unit", "value", "extra", "updated_at")
        .iterator(chunk_size=20000)
    ]
    gold_counts = [
        [external_of[dialogue_id], criterion_key[criterion_id], unit, value, count, n]
        for dialogue_id, criterion_id, unit, value, count, n in GoldCount.objects.filter(dialogue__project=project)
        .order_by("pk")
        .values_list("dialogue_id", "criterion_id", "unit", "value", "count", "n_annotators")
        .iterator(chunk_size=20000)
    ]
    runs = [
        {
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
        for r in Run.objects.filter(project=project).order_by("pk")
    ]
    return {
        "format": ARCHIVE_FORMAT,
        "version": ARCHIVE_VERSION,
        "project": {
            "name": project.name,
            "slug": project.slug,
            "preset": project.preset,
            "guidelines": project.guidelines,
            "annotators_per_dialogue": project.annotators_per_dialogue,
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


def project_archive(project: Project) -> bytes:
    """The archive as zip bytes: the same data gives the same bytes."""
    document = json.dumps(
        project_archive_data(project), ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        member = zipfile.ZipInfo(ARCHIVE_MEMBER, date_time=(1980, 1, 1, 0, 0, 0))
        member.compress_type = zipfile.ZIP_DEFLATED
        member.external_attr = 0o644 << 16
        archive.writestr(member, document.encode("utf-8"))
    return buffer.getvalue()
