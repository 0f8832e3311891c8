"""The fixed structure a save is checked against: a project's criteria and a dialogue's speakers.

Both are written once (criteria when the project is created from its preset, posts when the
dialogue is imported) and never change afterwards - judgements refer to them, so the admin
shows their structural fields read-only. Every save of an annotator needs them, so each process
keeps them in a small cache instead of asking the database on every request: a bounded LRU of
dialogue shapes, and criteria that are re-read after ``CRITERIA_TTL_SECONDS`` so that edits of
a label or question in the admin show up without a restart. Saving or deleting a criterion or
post in this process clears the cache at once (``structure_cache_clear``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property

from django.db import connection

from annotator.models import Criterion, Post

CRITERIA_TTL_SECONDS = 60.0
MAX_CACHED_DIALOGUES = 50_000

_lock = threading.Lock()
_shapes: OrderedDict[int, DialogueShape] = OrderedDict()
_criteria: dict[int, tuple[float, dict[str, Criterion]]] = {}


@dataclass(frozen=True)
class DialogueShape:
    """Who wrote each post of a dialogue, the utterance block each post belongs to, and which posts
    the source collection judged (``None`` when the source does not say: a new collection).

    >>> DialogueShape(("customer", "customer", "helpdesk"), (0, 0, 1)).turn_speakers
    ('customer', 'helpdesk')
    """

    speakers: tuple[str, ...]
    blocks: tuple[int, ...]
    annotated: frozenset[int] | None = None

    @classmethod
    def of_posts(cls, rows) -> DialogueShape:
        """From (speaker, utterance block, source_annotated) per post, in post order."""
        rows = list(rows)
        marks = [a for _s, _b, a in rows]
        annotated = None if all(a is None for a in marks) else frozenset(i for i, a in enumerate(marks) if a)
        return cls(tuple(s for s, _b, _a in rows), tuple(b for _s, b, _a in rows), annotated)

    @cached_property
    def turn_speakers(self) -> tuple[str, ...]:
        """The speaker of each utterance block (turn), in order."""
        out: list[str] = []
        for speaker, block in zip(self.speakers, self.blocks):
            if block == len(out):
                out.append(speaker)
        return tuple(out)


def dialogue_shape(dialogue_id: int) -> DialogueShape:
    """The speakers and utterance blocks of a dialogue's posts, in post order."""
    with _lock:
        shape = _shapes.get(dialogue_id)
        if shape is not None:
            _shapes.move_to_end(dialogue_id)
            return shape
    with connection.cursor() as cursor:  # plain SQL: a save that misses the cache pays no query compilation
        cursor.execute(
            f"SELECT speaker, utterance_block, source_annotated FROM {Post._meta.db_table}"
            " WHERE dialogue_id = %s ORDER BY position",
            [dialogue_id],
        )
        shape = DialogueShape.of_posts(cursor.fetchall())
    with _lock:
        _shapes[dialogue_id] = shape
        if len(_shapes) > MAX_CACHED_DIALOGUES:
            _shapes.popitem(last=False)
    return shape


def project_shapes(project_id: int) -> dict[int, DialogueShape]:
    """The shape of every dialogue of a project (one query; not cached), by dialogue id."""
    rows: dict[int, list[tuple]] = {}
    for dialogue_id, *row in (
        Post.objects.filter(dialogue__project_id=project_id)
        .order_by("dialogue_id", "position")
        .values_list("dialogue_id", "speaker", "utterance_block", "source_annotated")
        .iterator(chunk_size=20000)
    ):
        rows.setdefault(dialogue_id, []).append(row)
    return {dialogue_id: DialogueShape.of_posts(posts) for dialogue_id, posts in rows.items()}


def project_criteria(project_id: int) -> dict[str, Criterion]:
    """A project's criteria by key, in the project's order."""
    now = time.monotonic()
    with _lock:
        cached = _criteria.get(project_id)
    if cached is not None and now - cached[0] < CRITERIA_TTL_SECONDS:
        return cached[1]
    criteria = {c.key: c for c in Criterion.objects.filter(project_id=project_id).order_by("position", "id")}
    with _lock:
        _criteria[project_id] = (now, criteria)
    return criteria


def structure_cache_clear(**_signal_arguments) -> None:
    """Forget every cached shape and criterion (a signal receiver, and for tests)."""
    with _lock:
        _shapes.clear()
        _criteria.clear()
