"""Import batches: every import recorded, progress while it runs, and a removal that deletes exactly
the batch's rows after a confirmation that counts the submitted judgements."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import (
    Assignment,
    Dialogue,
    GoldCount,
    ImportBatch,
    ImportStatus,
    Judgement,
    Membership,
    Post,
    Reordering,
)
from annotator.services.import_batches import ImportBatchError, import_batch_remove, import_batch_run
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, judgements_save
from annotator.services.projects import membership_add
from evaluation.models import StatisticsJob
from tests.factories import user_make
from tests.fixtures.collections import nlpcc_rows, stc3_dialogues, write_json, write_nlpcc_xlsx

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_databases(
        reason=(
            "progress is read from a second connection on PostgreSQL only; a removal deletes a batch's rows in bulk "
            "on each database"
        )
    ),
]

TABLES = (Dialogue, Post, Assignment, Judgement, GoldCount, Reordering, Membership)


def snapshot() -> dict[str, set[int]]:
    return {m.__name__: set(m.objects.values_list("pk", flat=True)) for m in TABLES}


def rows_of_dialogues(dialogue_ids: set[int]) -> dict[str, set[int]]:
    """Every row that hangs off these dialogues, table by table."""
    assignments = set(Assignment.objects.filter(dialogue_id__in=dialogue_ids).values_list("pk", flat=True))
    return {
        "Dialogue": set(dialogue_ids),
        "Post": set(Post.objects.filter(dialogue_id__in=dialogue_ids).values_list("pk", flat=True)),
        "Assignment": assignments,
        "Judgement": set(Judgement.objects.filter(assignment_id__in=assignments).values_list("pk", flat=True)),
        "GoldCount": set(GoldCount.objects.filter(dialogue_id__in=dialogue_ids).values_list("pk", flat=True)),
        "Reordering": set(Reordering.objects.filter(assignment_id__in=assignments).values_list("pk", flat=True)),
        "Membership": set(),
    }


def renamed(prefix: str) -> list[dict]:
    return [dict(d, id=f"{prefix}{d['id']}") for d in stc3_dialogues()]


def submit_stc3(assignment: Assignment, user, *, submit: bool = True) -> None:
    blocks = {p.utterance_block: p.speaker for p in assignment.dialogue.posts.all()}
    nuggets = [Given("nugget", b, "CNaN" if s == "customer" else "HNaN") for b, s in blocks.items()]
    judgements_save(
        assignment_id=assignment.pk,
        user=user,
        values=[Given("A", 0, "1"), Given("S", 0, "0"), Given("E", 0, "-1"), *nuggets],
        submit=submit,
    )


@pytest.fixture
def two_batches(make_project, tmp_path):
    """An STC-3 project with two imports (2 dialogues each, 2 imported annotations each) and native work on both."""
    project = make_project("stc3", annotators_per_dialogue=1)
    lead = user_make("batch-lead")
    membership_add(project=project, user=lead, role="lead")
    first = dialogues_import(project=project, paths=[write_json(tmp_path / "first.json", renamed("a-"))], user=lead)
    second = dialogues_import(project=project, paths=[write_json(tmp_path / "second.json", renamed("b-"))], user=lead)
    ann = user_make("batch-ann")
    membership_add(project=project, user=ann, role="annotator")
    assignments_create_balanced(project=project)
    mine = {a.dialogue.external_id: a for a in Assignment.objects.filter(annotator=ann).select_related("dialogue")}
    submit_stc3(mine["a-d1"], ann)
    submit_stc3(mine["b-d1"], ann)
    submit_stc3(mine["b-d2"], ann, submit=False)  # a draft
    return project, lead, ImportBatch.objects.get(pk=first.batch_id), ImportBatch.objects.get(pk=second.batch_id)


def test_every_import_is_recorded_with_who_when_files_format_and_counts(two_batches):
    project, lead, first, _second = two_batches
    assert first.project == project and first.created_by == lead and first.created_at is not None
    assert (first.file_names, first.requested_format, first.format) == ("first.json", "auto", "stc3")
    assert first.status == "done"
    assert (first.dialogues_written, first.posts, first.judgements, first.annotators_created) == (2, 6, 22, 2)
    assert first.rows_written == 2 + 6 + 4 + 22  # dialogues, posts, imported assignments, judgements
    assert set(Dialogue.objects.filter(batch=first).values_list("external_id", flat=True)) == {"a-d1", "a-d2"}


def test_removing_a_batch_deletes_exactly_its_rows(two_batches, django_capture_on_commit_callbacks):
    # given two imports with imported and native judgements (submitted and draft) on both
    project, lead, _first, second = two_batches
    before = snapshot()
    expected = rows_of_dialogues(set(Dialogue.objects.filter(batch=second).values_list("pk", flat=True)))
    assert all(expected[t] for t in ("Dialogue", "Post", "Assignment", "Judgement"))
    # when the second batch is removed
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        removal = import_batch_remove(project=project, batch_id=second.pk, user=lead)
    # then exactly its rows are gone, the other batch and every membership untouched
    after = snapshot()
    for table in before:
        assert after[table] == before[table] - expected[table], table
    assert removal.contents.dialogues == 2 and removal.contents.assignments == len(expected["Assignment"])
    assert removal.contents.submitted_judgements == 2 * (3 + 3) + 2 * (3 + 2) + (3 + 3)  # imported + ann's d1
    assert removal.contents.native_submitted_judgements == 3 + 3 and removal.contents.draft_judgements == 3 + 2
    assert removal.contents.submitted_judgements + removal.contents.draft_judgements == len(expected["Judgement"])
    second.refresh_from_db()
    assert second.status == ImportStatus.REMOVED and second.removed_by == lead and second.removed_at is not None
    # and the statistics are asked to recompute
    assert len(callbacks) == 1 and StatisticsJob.objects.get(project=project).requested_at is not None
    # a removed batch cannot be removed again
    with pytest.raises(ImportBatchError, match="is removed; only an imported or a refused batch can be removed"):
        import_batch_remove(project=project, batch_id=second.pk, user=lead)


def test_removing_an_nlpcc_batch_deletes_its_gold_counts(make_project, tmp_path):
    project = make_project("nlpcc")
    keep = dialogues_import(project=project, paths=[write_nlpcc_xlsx(tmp_path / "a.xlsx", nlpcc_rows()[:1])])
    rows = [("q9", "r9", "bot-c", 3, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0)]
    gone = dialogues_import(project=project, paths=[write_nlpcc_xlsx(tmp_path / "b.xlsx", rows)])
    kept_counts = set(GoldCount.objects.filter(dialogue__batch_id=keep.batch_id).values_list("pk", flat=True))
    import_batch_remove(project=project, batch_id=gone.batch_id, user=None)
    assert set(GoldCount.objects.values_list("pk", flat=True)) == kept_counts and len(kept_counts) == 20


def test_the_confirmation_says_how_many_submitted_judgements_are_deleted(two_batches):
    project, lead, _first, second = two_batches
    client = Client()
    client.force_login(lead)
    url = reverse("lead_import_remove", args=[project.slug, second.pk])
    page = client.get(url).content.decode()
    assert '<strong id="submitted-judgements">28 submitted judgements</strong>' in page
    assert "(6 given by annotators here, 22 imported with the file), and 5 saved answers" in page
    assert Dialogue.objects.filter(batch=second).count() == 2  # looking changes nothing
    # the project page lists both imports with a way to remove each
    listing = client.get(reverse("lead_project", args=[project.slug])).content.decode()
    assert listing.count('href="/projects/stc3-test/manage/imports/') == 2
    response = client.post(url)
    assert response.status_code == 302 and not Dialogue.objects.filter(batch=second).exists()
    listing = client.get(reverse("lead_project", args=[project.slug])).content.decode()
    assert "Removed import" in listing and 'class="batch-removed"' in listing
    # annotators cannot see or remove batches
    client.force_login(Membership.objects.get(project=project, user__username="batch-ann").user)
    assert client.get(url).status_code == 403 and client.post(url).status_code == 403


def test_progress_is_reported_while_checking_then_while_writing(make_project, tmp_path):
    project = make_project("stc3")
    data = [dict(stc3_dialogues()[0], id=f"p{i}") for i in range(30)]
    seen = []
    dialogues_import(
        project=project, paths=[write_json(tmp_path / "p.json", data)], batch_size=10, progress=seen.append
    )
    checking = [p for p in seen if p.total is None]
    assert checking and checking[0].read >= 1 and all(p.written == 0 for p in checking)
    assert seen[-1].final and (seen[-1].read, seen[-1].total, seen[-1].written) == (30, 30, 30)
    assert seen[-1].rows == 30 * (1 + 4 + 2 + 12)
    writes = [p.written for p in seen if p.total is not None]
    assert writes == sorted(writes)


@pytest.mark.eager_tasks(reason="the import its job did, as the page and the status endpoint then show it")
def test_an_upload_through_the_page_runs_as_a_job(make_project, tmp_path, django_capture_on_commit_callbacks):
    project = make_project("stc3", slug="upl")
    lead = user_make("upl-lead")
    membership_add(project=project, user=lead, role="lead")
    client = Client()
    client.force_login(lead)
    write_json(tmp_path / "s.json", stc3_dialogues())
    with open(tmp_path / "s.json", "rb") as fh, django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lead_upload", args=["upl"]), {"file": fh, "format": "auto"})
    batch = ImportBatch.objects.get(project=project)
    assert response.status_code == 302
    assert response["Location"] == f"/projects/upl/manage/?import={batch.pk}#upload-heading"
    assert batch.status == "done" and batch.created_by == lead and project.dialogues.count() == 2
    state = client.get(reverse("lead_import_status", args=["upl", batch.pk])).json()
    assert state["status"] == "done" and state["message"] == "Imported 2 dialogues (22 judgements) from s.json."
    page = client.get(response["Location"]).content.decode()
    assert 'id="import-job"' in page and 'data-finished="true"' in page and "Imported 2 dialogues" in page


@pytest.mark.eager_tasks(reason="the refusal its import job wrote, as the page then shows it")
def test_a_refused_upload_shows_its_message_on_the_page(make_project, tmp_path, django_capture_on_commit_callbacks):
    project = make_project("dbdc", slug="upl-bd")
    lead = user_make("upl-bd-lead")
    membership_add(project=project, user=lead, role="lead")
    client = Client()
    client.force_login(lead)
    write_json(tmp_path / "s.json", stc3_dialogues())
    with open(tmp_path / "s.json", "rb") as fh, django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("lead_upload", args=["upl-bd"]), {"file": fh, "format": "auto"})
    page = client.get(response["Location"]).content.decode()
    assert "Nothing was imported. s.json: dialogue d1: has no system turn by S" in page
    assert "--format" not in page and project.dialogues.count() == 0


@pytest.mark.eager_tasks(reason="the import its job did, then the same job delivered again")
def test_running_a_job_twice_imports_once(make_project, tmp_path, django_capture_on_commit_callbacks):
    project = make_project("stc3", slug="twice")
    lead = user_make("twice-lead")
    membership_add(project=project, user=lead, role="lead")
    client = Client()
    client.force_login(lead)
    write_json(tmp_path / "s.json", stc3_dialogues())
    with open(tmp_path / "s.json", "rb") as fh, django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("lead_upload", args=["twice"]), {"file": fh, "format": "auto"})
    batch = ImportBatch.objects.get(project=project)
    assert import_batch_run(batch_id=batch.pk).status == "done"  # a redelivered task: nothing claimed
    assert project.dialogues.count() == 2 and ImportBatch.objects.get(pk=batch.pk).source is None
