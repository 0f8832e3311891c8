"""Pages at real size: the quality-control page's "Mark a dialogue" finds and pages through all of a project's
3,700 dialogues (not the first 1,000); the projects list shows a lead the project's progress, and each
project's counts its own in a few queries, however large the projects."""

from __future__ import annotations

import re

import pytest

from annotator.models import Assignment, AssignmentStatus, Membership
from annotator.selectors.projects import projects_for_user
from annotator.services.projects import membership_add
from tests.factories import breakdown_lines, project_with_work, user_make

pytestmark = pytest.mark.django_db


def options(page: str) -> list[str]:
    picker = page.split('id="id_dialogue"', 1)[1].split("</select>", 1)[0]
    return re.findall(r"<option value=\"\d+\">([^<]+)</option>", picker)


def test_mark_a_dialogue_finds_and_pages_past_the_first_thousand(client, tmp_path):
    work = project_with_work(
        "dbdc", slug="big-qc", annotators=0, k=3, assign=False, paths=[breakdown_lines(tmp_path / "d.jsonl", 1200, "d")]
    )
    ids = [f"d{i:02d}" for i in range(1200)]
    client.force_login(work.lead)
    first = client.get("/projects/big-qc/quality/").content.decode()
    assert options(first) == ids[:50] and "1200 dialogues not marked yet" in first and "Page 1 of 24" in first
    last = client.get("/projects/big-qc/quality/?page=24").content.decode()
    assert options(last) == ids[1150:]
    found = client.get("/projects/big-qc/quality/?find=D115").content.decode()  # any case, past 1,000
    assert options(found) == [i for i in ids if "d115" in i] == ["d115", *[f"d{n}" for n in range(1150, 1160)]]
    assert "11 unmarked dialogues whose ids contain “D115”" in found
    paged = client.get("/projects/big-qc/quality/?find=d1&page=2").content.decode()
    assert options(paged) == [i for i in ids if "d1" in i][50:100]
    assert "find=d1&amp;page=3#mark-heading" in paged
    none = client.get("/projects/big-qc/quality/?find=zzz").content.decode()
    assert 'id="id_dialogue"' not in none and "0 unmarked dialogues" in none


def test_the_projects_list_shows_a_lead_the_projects_progress_and_an_annotator_their_own(client, tmp_path):
    work = project_with_work(
        "dbdc", slug="prog", annotators=3, k=2, paths=[breakdown_lines(tmp_path / "d.jsonl", 5, "p")]
    )
    items = Assignment.objects.filter(dialogue__project=work.project, imported=False)
    assert items.count() == 10  # 5 dialogues x K = 2
    done = list(items.filter(annotator=work.annotators[0]).values_list("pk", flat=True))
    Assignment.objects.filter(pk__in=done).update(status=AssignmentStatus.SUBMITTED)
    client.force_login(work.lead)
    cell = re.sub(
        r"\s+",
        " ",
        re.sub(r"<[^>]+>", "", client.get("/").content.decode().split('class="progress-cell"')[1].split("</td>")[0]),
    )
    assert f"project: {len(done)} / 10 items submitted" in cell and "0 / 0" not in cell
    client.force_login(work.annotators[0])
    own = client.get("/").content.decode().split('class="progress-cell"')[1].split("</td>")[0]
    assert f"{len(done)} / {len(done)} submitted" in own and "project:" not in own


def test_a_lead_who_also_annotates_sees_both(client, tmp_path):
    work = project_with_work(
        "dbdc", slug="both", annotators=1, k=1, paths=[breakdown_lines(tmp_path / "d.jsonl", 4, "b")]
    )
    lead_annotating = user_make("both-lead-2")
    membership_add(project=work.project, user=lead_annotating, role="lead")
    Assignment.objects.filter(dialogue__project=work.project).update(annotator=lead_annotating)
    client.force_login(lead_annotating)
    cell = client.get("/").content.decode().split('class="progress-cell"')[1].split("</td>")[0]
    assert "project: 0 / 4 items submitted" in cell and "yours: 0 / 4 submitted" in cell


def test_each_project_in_the_list_counts_its_own(tmp_path, django_assert_max_num_queries):
    one = project_with_work(
        "dbdc", slug="one", annotators=2, k=2, paths=[breakdown_lines(tmp_path / "a.jsonl", 3, "a")]
    )
    two = project_with_work(
        "dbdc", slug="two", annotators=1, k=1, paths=[breakdown_lines(tmp_path / "b.jsonl", 5, "b")]
    )
    gone = project_with_work(
        "dbdc", slug="gone", annotators=1, k=1, paths=[breakdown_lines(tmp_path / "c.jsonl", 2, "c")]
    )
    user = one.annotators[0]
    membership_add(project=two.project, user=user, role="annotator")  # a member with no items there yet
    membership_add(project=gone.project, user=user, role="annotator")
    Assignment.objects.filter(dialogue__project=gone.project).update(annotator=user)
    Membership.objects.filter(project=gone.project, user=user).update(active=False)  # removed: not listed
    submitted = Assignment.objects.filter(dialogue__project=one.project, annotator=user).first()
    Assignment.objects.filter(pk=submitted.pk).update(status=AssignmentStatus.SUBMITTED)
    with django_assert_max_num_queries(4):
        rows = projects_for_user(user=user)
    assert [(r.slug, r.role, r.dialogue_count, r.my_assigned, r.my_submitted, r.submitted) for r in rows] == [
        ("one", "annotator", 3, 3, 1, None),
        ("two", "annotator", 5, 0, 0, None),
    ]
    with django_assert_max_num_queries(5):
        (led,) = projects_for_user(user=two.lead)
    assert (led.dialogue_count, led.my_assigned, led.submitted, led.needed) == (5, 0, 0, 5)
