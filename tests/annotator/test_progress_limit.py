"""The dashboard's progress per dialogue lists the first dialogues with native work and counts them all."""

import pytest

from annotator.selectors.progress import project_progress
from tests.factories import project_with_work

pytestmark = pytest.mark.django_db


def test_per_dialogue_progress_is_limited_and_counted():
    # given a project whose dialogues all have native (browser) work
    work = project_with_work("dbdc", annotators=2)
    n = work.project.dialogues.count()
    assert n >= 2
    # when the progress is read with room for one dialogue
    progress = project_progress(project=work.project, per_dialogue_limit=1)
    # then one dialogue is listed (the first imported), and all of them are counted
    first = work.project.dialogues.order_by("position", "pk").first()
    assert [row["pk"] for row in progress["per_dialogue"]] == [first.pk]
    assert progress["per_dialogue_total"] == n
    assert progress["per_dialogue"][0]["assigned"] == 2 and progress["per_dialogue"][0]["submitted"] == 0
    # and without the limit every dialogue is listed in import order
    full = project_progress(project=work.project)
    assert [row["pk"] for row in full["per_dialogue"]] == list(
        work.project.dialogues.order_by("position", "pk").values_list("pk", flat=True)
    )
    assert full["per_dialogue_total"] == n
