"""An annotator's progress and next item (``annotator_progress``), counted in the database, against the same
rule applied to every one of their assignments' rows (``_progress``, which the queue page uses)."""

import json

import pytest

from annotator.models import Assignment, AssignmentStatus, QualityItem, QualityItemKind
from annotator.selectors.queue import _progress, annotator_progress
from annotator.services.qualification import qualification_admit
from tests.factories import project_with_work

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(reason="counts by status and a LIMIT 1 query in queue order on each database"),
]


def every_row(project, user):
    """The rule over every row of the user's assignments, in queue order (what annotator_progress used to read)."""
    rows = (
        Assignment.objects.filter(dialogue__project=project, annotator=user, imported=False)
        .order_by("queue_rank", "pk")
        .values_list("pk", "status", "dialogue__quality_item__kind")
    )
    return _progress(project, user, list(rows))


def queue_of(tmp_path, n: int = 8):
    """A project of ``n`` short dialogues and its one annotator's queue."""
    path = tmp_path / "dialogues.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"d{i}", "turns": [{"speaker": "AB"[t % 2], "text": f"{i}-{t}"} for t in range(4)]})
            for i in range(n)
        )
    )
    return project_with_work("coherence", annotators=1, paths=[path])


def test_progress_and_next_item_match_the_rule_over_every_row_through_a_qualification(tmp_path):
    # given an annotator's queue of eight dialogues, two of them training items, one a control
    work = queue_of(tmp_path)
    project, user = work.project, work.annotators[0]
    dialogues = list(project.dialogues.order_by("position"))
    for dialogue, kind in zip(dialogues[:3], [QualityItemKind.TRAINING] * 2 + [QualityItemKind.CONTROL], strict=True):
        QualityItem.objects.create(dialogue=dialogue, kind=kind)
    mine = list(Assignment.objects.filter(annotator=user).order_by("queue_rank", "pk"))
    seen = []

    def check():
        progress = annotator_progress(project=project, user=user)
        assert progress == every_row(project, user)
        seen.append((progress.done, progress.total, progress.locked, progress.next_item_id))

    # when nothing is done yet: the real items are locked, the next item is the first training item
    check()
    assert seen[-1][2] == len(mine) - 2 and seen[-1][3] is not None
    # and once the lead admits them: items in progress come before pending ones, submitted ones are counted
    qualification_admit(project=project, username=user.username, admitted_by=work.lead)
    check()
    real = [a for a in mine if a.dialogue_id not in {d.pk for d in dialogues[:2]}]
    Assignment.objects.filter(pk=real[-1].pk).update(status=AssignmentStatus.IN_PROGRESS)
    Assignment.objects.filter(pk__in=[real[0].pk, real[1].pk]).update(status=AssignmentStatus.SUBMITTED)
    check()
    assert seen[-1][:2] == (2, len(real)) and seen[-1][3] == real[-1].pk
    # and when every real item is submitted there is no next item
    Assignment.objects.filter(pk__in=[a.pk for a in real]).update(status=AssignmentStatus.SUBMITTED)
    check()
    assert seen[-1][:2] == (len(real), len(real)) and seen[-1][3] is None


def test_without_training_items_the_next_item_is_the_first_pending_in_queue_order(tmp_path):
    work = queue_of(tmp_path, 3)
    project, user = work.project, work.annotators[0]
    mine = list(Assignment.objects.filter(annotator=user).order_by("queue_rank", "pk"))
    Assignment.objects.filter(pk=mine[0].pk).update(status=AssignmentStatus.SUBMITTED)
    progress = annotator_progress(project=project, user=user)
    assert progress == every_row(project, user)
    assert (progress.done, progress.total, progress.next_item_id, progress.qualification) == (
        1,
        len(mine),
        mine[1].pk,
        None,
    )
