"""The manage page: K checked the same way on creation and here, an assignment that explains itself,
and the item list of a 5,000-item project a page at a time, filtered, in a fixed number of queries."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotator.forms import GuidelinesForm, ProjectCreateForm
from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Membership, Project
from annotator.selectors.manage import assignment_shortfall
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_settings_update
from tests.factories import project_with_work, user_make

pytestmark = pytest.mark.django_db

# Queries of the manage page, pinned: session, user, project, membership, per-annotator progress,
# members, totals, active annotators, dialogues short of K, imports, criteria (label gold of the adaptive
# budget), open invitations, item count, one page of items (not asked for when the count is 0).
MANAGE_QUERIES = 14


def lead_client(project_work) -> Client:
    client = Client()
    client.force_login(project_work.lead)
    return client


@pytest.mark.parametrize("k", [0, -1, 101])
def test_k_is_checked_the_same_way_on_creation_and_on_the_manage_page(k, make_project):
    created = ProjectCreateForm(data={"name": "x", "slug": "x", "preset": "stc3", "annotators_per_dialogue": k})
    managed = GuidelinesForm(data={"guidelines": "g", "annotators_per_dialogue": k}, instance=make_project("stc3"))
    assert not created.is_valid() and not managed.is_valid()
    assert created.errors["annotators_per_dialogue"] == managed.errors["annotators_per_dialogue"]
    with pytest.raises(ValueError, match="must be between 1 and 100"):
        project_settings_update(project=make_project("dbdc"), guidelines="", annotators_per_dialogue=k)


def test_the_manage_page_refuses_k_zero_and_keeps_the_old_value():
    work = project_with_work("stc3", annotators=2)
    response = lead_client(work).post(
        reverse("lead_guidelines", args=[work.project.slug]), {"guidelines": "g", "annotators_per_dialogue": 0}
    )
    assert response.status_code == 400
    assert "Ensure this value is greater than or equal to 1." in response.content.decode()
    assert Project.objects.get(pk=work.project.pk).annotators_per_dialogue == 2


def test_fewer_active_annotators_than_k_is_said_before_running():
    work = project_with_work("stc3", annotators=1, k=1, assign=False)
    Project.objects.filter(pk=work.project.pk).update(annotators_per_dialogue=3)
    page = lead_client(work).get(reverse("lead_project", args=[work.project.slug])).content.decode()
    explanation = re.search(r'<p id="assignment-explanation"\s+class="errors">(.*?)</p>', page, re.S).group(1)
    assert explanation == (
        "This project has 1 active annotator, fewer than K = 3: every dialogue needs K different annotators, "
        "so the assignment cannot run. Add 2 more annotators or lower K. "
        "K is set under “Guidelines and annotators per dialogue”."
    )
    response = lead_client(work).post(reverse("lead_assign", args=[work.project.slug]), follow=True)
    assert "fewer than K = 3: every dialogue needs K different annotators; add 2 more or lower K" in (
        response.content.decode()
    )
    assert not Assignment.objects.filter(dialogue__project=work.project, imported=False).exists()


def test_removing_an_annotator_says_how_many_dialogues_are_left_short_and_why():
    # given K = 2 and three annotators with every item assigned; ann1 submits one item
    work = project_with_work("stc3", annotators=3, k=2)
    ann1, ann2 = work.annotators[0], work.annotators[1]
    mine = Assignment.objects.filter(annotator=ann1, imported=False)
    n_mine = mine.count()
    Assignment.objects.filter(pk=mine.first().pk).update(status=AssignmentStatus.SUBMITTED)
    client = lead_client(work)
    # when ann1 is removed
    response = client.post(reverse("lead_member_remove", args=[work.project.slug, ann1.pk]), follow=True)
    # then the page says what happens to their work and how many dialogues are now short of K
    text = response.content.decode()
    short = n_mine - 1
    assert (
        f"Removed {ann1.username}. Their 1 submitted items stay. Their {short} unfinished items go back to the pool "
        f"when you run the assignment. {short} dialogues have fewer than K = 2 annotators ({short} of them because "
        f"{ann1.username}&#x27;s unfinished items no longer count). Run the assignment to give them other annotators."
    ) in text
    assert assignment_shortfall(project=work.project).short == short
    # and with one annotator left, fewer than K, it says they stay short
    text = client.post(reverse("lead_member_remove", args=[work.project.slug, ann2.pk]), follow=True).content
    assert "Only 1 active annotators remain, fewer than K = 2: they stay short until you add annotators" in (
        text.decode()
    )


@pytest.fixture
def five_thousand_items(tmp_path):
    """2,500 dialogues, two annotators, K = 2: 5,000 items."""
    work = project_with_work("dch1", slug="big", annotators=2, k=2, assign=False, lead_name="big-lead")
    path = tmp_path / "big.jsonl"
    lines = []
    for i in range(2500 - work.project.dialogues.count()):
        turns = [{"speaker": "customer", "text": f"problem {i}"}, {"speaker": "helpdesk", "text": "answer"}]
        lines.append(json.dumps({"id": f"big-{i:05d}", "turns": turns}))
    path.write_text("\n".join(lines) + "\n")
    dialogues_import(project=work.project, paths=[path])
    assignments_create_balanced(project=work.project)
    submitted = Assignment.objects.filter(dialogue__project=work.project, annotator=work.annotators[0])[:700]
    Assignment.objects.filter(pk__in=[a.pk for a in submitted]).update(status=AssignmentStatus.SUBMITTED)
    assert Assignment.objects.filter(dialogue__project=work.project, imported=False).count() == 5000
    return work


def test_the_manage_page_of_5000_items_pages_and_filters_in_a_fixed_number_of_queries(five_thousand_items):
    work = five_thousand_items
    client = lead_client(work)
    url = reverse("lead_project", args=["big"])
    first, second = work.annotators
    cases = {
        "": (50, "5000 items · page 1 of 100"),
        "?page=100": (50, "5000 items · page 100 of 100"),
        "?status=submitted": (50, "700 items match · page 1 of 14"),
        f"?annotator={second.pk}": (50, "2500 items match · page 1 of 50"),
        f"?status=submitted&annotator={second.pk}": (0, "0 items match"),
        "?dialogue=big-01234": (2, "2 items match"),
        "?status=nonsense&annotator=x&page=-4": (50, "5000 items · page 100 of 100"),
    }
    for query, (rows, summary) in cases.items():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url + query)
        assert response.status_code == 200
        expected = MANAGE_QUERIES if rows else MANAGE_QUERIES - 1
        assert len(queries.captured_queries) == expected, (query, [q["sql"] for q in queries.captured_queries])
        page = response.content.decode()
        body = page.split('<table class="table compact" id="items">', 1)[1].split("</table>", 1)[0]
        assert len(re.findall(r"<tr><td>", body)) == rows, query
        assert re.sub(r"\s+", " ", re.search(r'<p class="muted" id="items-count">(.*?)</p>', page).group(1)) == summary
    # the dialogue filter finds both annotators' items of that dialogue
    page = client.get(url + "?dialogue=big-01234").content.decode()
    assert page.count("<td>big-01234</td>") == 2 and first.username in page and second.username in page
    assert Membership.objects.filter(project=work.project, role="annotator").count() == 2


def test_annotators_are_listed_in_natural_order(tmp_path):
    work = project_with_work("stc3", annotators=3, k=3, annotator_names=["ann10", "ann2", "ann1"], lead_name="nat-lead")
    membership_add(project=work.project, user=user_make("ann3"), role="annotator")
    page = lead_client(work).get(reverse("lead_project", args=[work.project.slug])).content.decode()
    table = page.split('id="progress-annotators"', 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<tr><td>(ann\d+)</td>", table) == ["ann1", "ann2", "ann10"]
