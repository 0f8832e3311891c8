"""Issue 33's lead-side rules below the pages: the control-accuracy flag is the project's own setting, mixing
controls says why nothing was added, training feedback names units as the item did, a refused import leaves the
list, an order kept as shown is recorded as such, and statistics are written in the page's language."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, ImportBatch, ImportStatus, Reordering
from annotator.selectors.qualification import training_feedback
from annotator.services.import_batches import import_batch_remove
from annotator.services.judgements import judgements_save
from annotator.services.quality_items import (
    QualityError,
    quality_assignments_create,
    quality_item_set,
    quality_settings_update,
)
from evaluation.selectors.fingerprint import judgements_fingerprint
from evaluation.services.statistics import project_statistics
from evaluation.templatetags.scoring_extras import fmt, share_percent, term
from tests.factories import (
    api_client,
    breakdown_project,
    expected_all,
    first_allowed_values,
    project_with_work,
    submit_all,
)

pytestmark = pytest.mark.django_db


def _half_right_on_controls(tmp_path):
    """Two controls expecting X everywhere; every annotator answers one of them right and one wrong (50%)."""
    work = breakdown_project(tmp_path, dialogues=8, annotators=3, k=3, assign=False)
    controls = list(work.project.dialogues.order_by("position")[:2])
    for d in controls:
        quality_item_set(project=work.project, dialogue_id=d.pk, kind="control", answers=expected_all(d, "X"))
    quality_settings_update(project=work.project, control_rate=0.3)
    assignments_create_balanced(project=work.project)
    right = controls[0].pk
    for person in work.annotators:
        submit_all(person, work.project, lambda a, k, u: "X" if a.dialogue_id == right else "O")
    return work


def _control_flags(work) -> dict[str, list[str]]:
    annotators = project_statistics(work.project)["reliability"]["annotators"]
    return {name: [f for f in a["flags"] if f.startswith("control accuracy")] for name, a in annotators.items()}


def test_the_control_accuracy_flag_threshold_is_the_projects_setting(tmp_path):
    work = _half_right_on_controls(tmp_path)
    # the default, 70%: 50% right is flagged, and the flag names the threshold
    flags = _control_flags(work)
    assert all(f == ["control accuracy 50% (below 70%); control items answered: 2"] for f in flags.values()), flags
    before = judgements_fingerprint(work.project)
    # a lead who accepts 40% sets it; the flags follow, and the statistics know they must be recomputed
    quality_settings_update(project=work.project, control_accuracy_flag=0.4)
    assert judgements_fingerprint(work.project) != before
    assert all(f == [] for f in _control_flags(work).values())
    quality_settings_update(project=work.project, control_accuracy_flag=0.6)
    assert all(
        f == ["control accuracy 50% (below 60%); control items answered: 2"] for f in _control_flags(work).values()
    )
    stats = project_statistics(work.project)
    assert stats["reliability"]["thresholds"]["control_accuracy"] == 0.6


def test_a_control_accuracy_threshold_outside_0_to_1_is_refused(tmp_path):
    work = breakdown_project(tmp_path, dialogues=2, annotators=1, k=1)
    with pytest.raises(QualityError, match=r"between 0 and 1, got 1\.5"):
        quality_settings_update(project=work.project, control_accuracy_flag=1.5)


def test_mixing_controls_says_how_many_were_added_or_why_none(tmp_path):
    work = breakdown_project(tmp_path, dialogues=12, annotators=2, k=2)
    assert quality_assignments_create(project=work.project).summary == (
        "No control item was added: no dialogue is marked as a control item yet."
    )
    d = work.project.dialogues.order_by("position").last()
    quality_item_set(project=work.project, dialogue_id=d.pk, kind="control", answers=expected_all(d, "X"))
    assert "the control rate is zero" in quality_assignments_create(project=work.project).summary
    quality_settings_update(project=work.project, control_rate=0.1)
    report = quality_assignments_create(project=work.project)
    added = Assignment.objects.filter(dialogue=d).count()
    assert report.controls_added == added == 2
    assert report.summary == "Added 2 control items to the annotators' queues."
    again = quality_assignments_create(project=work.project).summary
    assert again.startswith("No control item was added: every annotator already has") and "10%" in again


def test_training_feedback_names_units_as_the_item_showed_them(tmp_path):
    work = breakdown_project(tmp_path, dialogues=3, annotators=1, k=1, assign=False)
    d = work.project.dialogues.order_by("position").first()
    quality_item_set(project=work.project, dialogue_id=d.pk, kind="training", answers=expected_all(d, "X"))
    quality_assignments_create(project=work.project)
    item = Assignment.objects.get(dialogue=d)
    judgements_save(assignment_id=item.pk, user=item.annotator, values=first_allowed_values(item), submit=True)
    item.refresh_from_db()
    rows = training_feedback(assignment=item)["answers"]
    # the breakdown's units are the system turns 3 and 5 of S U S U S (stored as 2 and 4): named as the page does
    assert [(r["unit"], r["unit_name"]) for r in rows] == [(2, "turn 3 (S)"), (4, "turn 5 (S)")]
    with translation.override("ja"):
        assert training_feedback(assignment=item)["answers"][0]["label"] == "対話破綻"


def test_a_refused_import_can_be_removed_from_the_list(tmp_path):
    work = breakdown_project(tmp_path, dialogues=2, annotators=1, k=1)
    batch = ImportBatch.objects.create(
        project=work.project, file_names="broken.json", status=ImportStatus.FAILED, error="not JSON"
    )
    removal = import_batch_remove(project=work.project, batch_id=batch.pk, user=work.lead)
    assert removal.refused and not ImportBatch.objects.filter(pk=batch.pk).exists()
    # and through the page: a button in the list, then a message saying what happened
    other = ImportBatch.objects.create(
        project=work.project, file_names="bad.xlsx", status=ImportStatus.FAILED, error="no sheet"
    )
    client = Client()
    client.force_login(work.lead)
    page = client.get(f"/projects/{work.project.slug}/manage/").content.decode()
    assert "Remove from the list" in page
    answer = client.post(f"/projects/{work.project.slug}/manage/imports/{other.pk}/remove/", follow=True)
    assert f"Removed the refused import {other.pk} (bad.xlsx) from the list." in answer.content.decode()
    assert not ImportBatch.objects.filter(pk=other.pk).exists()


def test_an_order_given_as_shown_is_recorded_as_kept(tmp_path):
    work = project_with_work("coherence", annotators=2, k=2)
    first, second = (work.assignments_of(p)[0] for p in work.annotators)
    n = len(first.shown_order)
    # shown in a shuffle that happens to be valid: the dialogue's own order
    Assignment.objects.filter(pk__in=[first.pk, second.pk]).update(shown_order=list(range(n)))
    first.refresh_from_db()
    judgements_save(assignment_id=first.pk, user=first.annotator, values=[], reordering=list(range(n)))
    moved = [2, 1, 0] + list(range(3, n))  # two turns of the first speaker swapped: still valid
    judgements_save(assignment_id=second.pk, user=second.annotator, values=[], reordering=moved)
    kept = Reordering.objects.get(assignment=first)
    assert kept.kept_shown_order and kept.submitted_order == list(first.shown_order)
    assert not Reordering.objects.get(assignment=second).kept_shown_order


def test_statistics_are_written_in_the_pages_language():
    assert fmt(12345.678) == "12,345.6780" and fmt(0.99996) == "1.0000" and fmt(None) == "–"
    assert share_percent(0.125) == "12.5%"
    with translation.override("ja"):
        assert str(term("ordinal")) == "順序尺度" and str(term("all")) == "全員" and str(term("linear")) == "線形"
    with translation.override("zh-hans"):
        assert str(term("nominal")) == "名义尺度"


def test_favicon_answers_at_the_root_and_pages_link_it(client):
    answer = client.get("/favicon.ico")
    assert answer.status_code == 200 and answer["Content-Type"] == "image/x-icon"
    body = answer.content
    assert body[:4] == b"\x00\x00\x01\x00" and int.from_bytes(body[4:6], "little") == 2  # an icon of two sizes
    assert '<link rel="icon"' in client.get("/accounts/login/").content.decode()


def test_the_api_reads_and_sets_the_control_accuracy_flag(tmp_path):
    work = breakdown_project(tmp_path, dialogues=2, annotators=1, k=1)
    client = api_client(work.lead)
    url = f"/api/projects/{work.project.slug}/quality/settings/"
    assert client.get(url).json()["control_accuracy_flag"] == 0.7
    assert client.patch(url, {"control_accuracy_flag": 0.65}, format="json").json()["control_accuracy_flag"] == 0.65
    assert client.patch(url, {"control_accuracy_flag": 2}, format="json").status_code == 400
