"""Control items: mixed into every queue at the lead's rate in places nobody can tell, kept out of gold data,
agreement and gold exports, and scored per annotator over time; entered on a page, by API or uploaded."""

import io
import json

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.exporters import export_gold
from annotator.handout.services.bulk import assignments_create_balanced
from annotator.importers import InputError
from annotator.models import Assignment, AssignmentStatus, Dialogue, Membership, QualityItem
from annotator.selectors.judgement_arrays import project_judgements
from annotator.services.quality_items import (
    QualityError,
    quality_assignments_create,
    quality_item_set,
    quality_items_upload,
    quality_settings_update,
)
from evaluation.services.statistics import project_statistics
from scoring.agreement import fleiss_kappa, krippendorff_alpha_from_counts
from tests.factories import api_client, breakdown_project, expected_all, submit_all
from tests.fixtures.collections import dbdc_dialogue

pytestmark = pytest.mark.django_db


def mark_controls(work, n: int, kind: str = "control") -> list[Dialogue]:
    dialogues = list(work.project.dialogues.order_by("position")[:n])
    for d in dialogues:
        quality_item_set(project=work.project, dialogue_id=d.pk, kind=kind, answers=expected_all(d, "X"))
    return dialogues


def test_controls_reach_every_queue_at_the_set_rate_in_random_places(tmp_path, client):
    # given 30 dialogues of which 6 are controls, 4 annotators, K = 2 and one control in five items
    work = breakdown_project(tmp_path, dialogues=30, annotators=4, k=2, assign=False)
    controls = {d.pk for d in mark_controls(work, 6)}
    quality_settings_update(project=work.project, control_rate=0.2)
    # when the lead runs the assignment
    assignments_create_balanced(project=work.project, seed=3)
    # then every queue holds round(rate n / (1 - rate)) controls beside its n ordinary items
    first_positions = []
    for person in work.annotators:
        queue = work.assignments_of(person)
        mine = [a.dialogue_id in controls for a in queue]
        n_controls, n_ordinary = sum(mine), len(queue) - sum(mine)
        assert n_ordinary == 12  # 24 ordinary dialogues x K = 2 over 4 annotators
        assert n_controls == round(0.2 * n_ordinary / 0.8) == 3
        assert abs(n_controls / len(queue) - 0.2) < 1 / len(queue)
        # in a fresh order: ranks 0..n-1, controls not bunched at either end
        assert sorted(a.queue_rank for a in queue) == list(range(len(queue)))
        first_positions.append(mine.index(True))
    assert len(set(first_positions)) > 1
    # and no ordinary assignment went to a control dialogue beyond the mix (each control at most once per queue)
    assert Assignment.objects.filter(dialogue_id__in=controls).count() == 4 * 3
    # and a control item's page is the page of an ordinary item: nothing names it
    person = work.annotators[0]
    client.force_login(person)
    control = next(a for a in work.assignments_of(person) if a.dialogue_id in controls)
    ordinary = next(a for a in work.assignments_of(person) if a.dialogue_id not in controls)
    pages = [client.get(f"/items/{a.pk}/").content.decode() for a in (control, ordinary)]
    assert all("control" not in p.lower() and "expected" not in p.lower() for p in pages)
    # and running it again adds nothing; lowering the rate withdraws unstarted controls
    assert quality_assignments_create(project=work.project, seed=3).controls_added == 0
    quality_settings_update(project=work.project, control_rate=0.1)
    report = quality_assignments_create(project=work.project, seed=3)
    assert report.controls_withdrawn == 4 * (3 - round(0.1 * 12 / 0.9))


def test_control_judgements_never_enter_gold_agreement_or_gold_exports(tmp_path):
    # given controls in the queues, everyone submits: ordinary items by a pattern, controls all "O"
    work = breakdown_project(tmp_path, dialogues=10, annotators=3, k=3, assign=False)
    controls = mark_controls(work, 3)
    quality_settings_update(project=work.project, control_rate=0.25)
    assignments_create_balanced(project=work.project)
    control_ids = {d.pk for d in controls}
    for i, person in enumerate(work.annotators):
        submit_all(
            person, work.project, lambda a, k, u, i=i: "O" if a.dialogue_id in control_ids else "OTX"[(u + i) % 3]
        )
    assert Assignment.objects.filter(dialogue_id__in=control_ids, status=AssignmentStatus.SUBMITTED).exists()
    # when the gold arrays, the statistics and the exports are made
    data = project_judgements(work.project)["breakdown"]
    stats = project_statistics(work.project)
    # then no control dialogue is a unit of gold data
    assert not set(data.unit_dialogue.tolist()) & control_ids
    assert data.n_units == 7 * 2
    # and agreement equals the library's on the ordinary units' counts alone
    counts = np.zeros((14, 3), dtype=int)
    ordinary = Dialogue.objects.filter(project=work.project).exclude(pk__in=control_ids).order_by("pk")
    keys = {(d.pk, u): n for n, (d, u) in enumerate((d, u) for d in ordinary for u in (2, 4))}
    from annotator.models import Judgement

    for dialogue_id, unit, value in Judgement.objects.filter(
        assignment__dialogue__in=ordinary, assignment__status=AssignmentStatus.SUBMITTED
    ).values_list("assignment__dialogue_id", "unit", "value"):
        counts[keys[(dialogue_id, unit)], "OTX".index(value)] += 1
    criterion = stats["criteria"]["breakdown"]
    assert criterion["n_units"] == 14
    assert criterion["fleiss_kappa"] == pytest.approx(fleiss_kappa(counts))
    assert criterion["krippendorff_alpha"]["ordinal"] == pytest.approx(
        krippendorff_alpha_from_counts(counts, "ordinal")
    )
    # and no gold export carries a control dialogue
    names = {d.external_id for d in controls}
    # (the formats a breakdown project fits; STC-3 is refused for it)
    for fmt in ("distributions-json", "distributions-csv", "dbdc"):
        body = export_gold(project=work.project, fmt=fmt)
        if fmt == "dbdc":
            import zipfile

            body = b"".join(
                zipfile.ZipFile(io.BytesIO(body)).read(n) for n in zipfile.ZipFile(io.BytesIO(body)).namelist()
            )
        assert not any(name.encode() in body for name in names), fmt
    # and each annotator's control accuracy is reported, over time: all "O" against expected "X" is 0%
    reliability = stats["reliability"]["annotators"]
    for person in work.annotators:
        control = reliability[person.username]["control"]
        assert control["accuracy"] == 0.0 and control["items"] == len(control["series"]) >= 1
        assert [p["cumulative"] for p in control["series"]] == [0.0] * control["items"]
        assert any("control accuracy 0%" in f for f in reliability[person.username]["flags"])


def test_tolerance_counts_near_answers_on_ordered_scales_only(tmp_path):
    from annotator.selectors.quality import checked_answers

    # given a control whose expected breakdown (an ordinal scale O < T < X) is "X" within one point
    work = breakdown_project(tmp_path, dialogues=4, annotators=2, k=2, assign=False)
    (control,) = work.project.dialogues.order_by("position")[:1]
    quality_item_set(
        project=work.project, dialogue_id=control.pk, kind="control", answers=expected_all(control, "X", 1)
    )
    quality_settings_update(project=work.project, control_rate=0.5)
    assignments_create_balanced(project=work.project)
    # when one annotator answers T (one point off) and the other O (two points off)
    submit_all(work.annotators[0], work.project, lambda a, k, u: "T")
    submit_all(work.annotators[1], work.project, lambda a, k, u: "O")
    answers = checked_answers(project=work.project, kind="control")
    # then T counts and O does not
    right = {int(u): bool(c) for u, c in zip(answers.annotator, answers.correct)}
    assert right == {work.annotators[0].pk: True, work.annotators[1].pk: False}
    # and a tolerance on a nominal criterion is refused
    stc3 = breakdown_project(tmp_path, dialogues=2, slug="qc-nominal", assign=False)
    with pytest.raises(QualityError, match="nominal"):
        from annotator.services.quality_items import Expected

        stc3.project.criteria.update(level="nominal")
        d = stc3.project.dialogues.first()
        quality_item_set(
            project=stc3.project, dialogue_id=d.pk, kind="control", answers=[Expected("breakdown", 2, "X", 1)]
        )


def test_upload_takes_the_consensus_and_keeps_no_judgements(tmp_path):
    # given a project and a DBDC log whose turns 2 and 4 carry three annotators' labels each
    work = breakdown_project(tmp_path, dialogues=2, assign=False)
    members_before = Membership.objects.count()
    body = dbdc_dialogue("ctl-1", labels=("X", "X", "T"))
    upload = SimpleUploadedFile("ctl-1.log.json", json.dumps(body).encode())
    # when the lead uploads it as a control item with a tolerance of 1
    (item,) = quality_items_upload(project=work.project, uploaded=upload, kind="control", tolerance=1)
    # then the expected answers are the labels' median and the annotations left no judgements or annotators
    answers = {(a.criterion.key, a.unit): (a.value, a.tolerance) for a in item.answers.all()}
    assert answers[("breakdown", 2)] == ("X", 1)
    assert not Assignment.objects.filter(dialogue=item.dialogue).exists()
    assert Membership.objects.count() == members_before
    # and a file without annotations is refused whole
    plain = SimpleUploadedFile(
        "plain.jsonl", b'{"id": "plain", "turns": [{"speaker": "U", "text": "hi"}, {"speaker": "S", "text": "yo"}]}\n'
    )
    with pytest.raises(InputError, match="no annotations"):
        quality_items_upload(project=work.project, uploaded=plain, kind="control")
    assert not work.project.dialogues.filter(external_id="plain").exists()


def test_the_api_marks_lists_mixes_and_unmarks_controls(tmp_path):
    work = breakdown_project(tmp_path, dialogues=8, annotators=2, k=2, slug="qc-api")
    lead = api_client(work.lead)
    settings = lead.patch("/api/projects/qc-api/quality/settings/", {"control_rate": 0.25}, format="json")
    assert settings.status_code == 200 and settings.json()["control_rate"] == 0.25
    d = work.project.dialogues.order_by("position").last()
    item = {
        "dialogue": d.external_id,
        "kind": "control",
        "answers": [{"criterion": "breakdown", "unit": 2, "value": "X"}],
    }
    made = lead.post("/api/projects/qc-api/quality/items/", item, format="json")
    assert made.status_code == 201 and made.json()["answers"][0]["value"] == "X"
    bad = lead.post(
        "/api/projects/qc-api/quality/items/",
        {**item, "answers": [{"criterion": "breakdown", "unit": 1, "value": "X"}]},
        format="json",
    )
    assert bad.status_code == 400 and "applies to S turns" in json.dumps(bad.json())
    mixed = lead.post("/api/projects/qc-api/quality/mix/", {}, format="json")
    assert mixed.status_code == 200
    listed = lead.get("/api/projects/qc-api/quality/items/").json()
    assert [i["dialogue"] for i in listed] == [d.external_id] and listed[0]["assigned"] >= 1
    annotator = api_client(work.annotators[0])
    assert annotator.get("/api/projects/qc-api/quality/items/").status_code == 403
    assert lead.delete(f"/api/projects/qc-api/quality/items/{d.external_id}/").status_code == 204
    assert not QualityItem.objects.filter(dialogue=d).exists()
