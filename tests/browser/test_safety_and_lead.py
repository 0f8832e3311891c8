"""Permissions, inert imported text, and the lead's flow from project creation to assignment, in Chromium."""

from __future__ import annotations

import json

import pytest

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Membership, Project
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, judgements_save
from annotator.services.projects import membership_add, project_create
from tests.browser.test_annotation import PASSWORD, login, radio, stored, submit_and_wait

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EVIL = [
    {
        "id": "x1",
        "turns": [
            {"speaker": "customer", "text": "<script>window.pwned = 1; alert('x')</script>"},
            {"speaker": "helpdesk", "text": '<img src=x onerror="window.pwned = 2">'},
        ],
    }
]


@pytest.fixture
def two_annotators(tmp_path, django_user_model):
    project = project_create(slug="safe", preset="dch1", annotators_per_dialogue=1)
    path = tmp_path / "evil.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in EVIL + [dict(EVIL[0], id="x2")]))
    dialogues_import(project=project, paths=[path])
    users = [django_user_model.objects.create_user(username=n, password=PASSWORD) for n in ("ann", "other")]
    for u in users:
        membership_add(project=project, user=u, role="annotator")
    assignments_create_balanced(project=project)
    return project, users


def test_imported_html_is_shown_as_text_and_runs_nothing(live_server, page, screenshot, two_annotators):
    _project, (ann, _other) = two_annotators
    item = Assignment.objects.get(annotator=ann)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    login(page, live_server, "ann")
    page.goto(f"{live_server.url}/items/{item.pk}/")
    texts = page.locator(".post-text").all_inner_texts()
    assert texts[0] == "<script>window.pwned = 1; alert('x')</script>"
    assert texts[1] == '<img src=x onerror="window.pwned = 2">'
    assert page.locator(".post img").count() == 0 and page.locator(".post script").count() == 0
    assert page.evaluate("window.pwned") is None and dialogs == []
    screenshot("annotate-html-injection")


def test_annotators_open_only_their_own_items_and_no_lead_pages(live_server, page, two_annotators):
    _project, (ann, other) = two_annotators
    mine = Assignment.objects.get(annotator=ann)
    theirs = Assignment.objects.get(annotator=other)
    judgements_save(assignment_id=theirs.pk, user=other, values=[Given("TS", 0, "1")])
    login(page, live_server, "ann")
    assert page.goto(f"{live_server.url}/items/{theirs.pk}/").status == 404
    assert page.goto(f"{live_server.url}/items/{mine.pk}/").status == 200
    assert page.goto(f"{live_server.url}/projects/safe/manage/").status == 403
    assert page.goto(f"{live_server.url}/projects/new/").status == 403
    assert page.goto(f"{live_server.url}/admin/annotator/judgement/").url.endswith(
        "/admin/login/?next=/admin/annotator/judgement/"
    )
    # a forged autosave for someone else's item is refused and changes nothing
    status = page.evaluate(
        """async (url) => {
        const token = document.querySelector('input[name=csrfmiddlewaretoken]').value;
        const r = await fetch(url, {method: 'POST', headers: {'X-CSRFToken': token, 'Content-Type': 'application/json'},
                                    body: JSON.stringify({judgements: [{criterion: 'TS', unit: 0, value: '-1'}]})});
        return r.status; }""",
        f"{live_server.url}/api/assignments/{theirs.pk}/judgements/",
    )
    page.goto(f"{live_server.url}/items/{mine.pk}/")
    assert status == 404
    assert stored(theirs) == {("TS", 0, "1")}
    # the page of one's own item shows no other annotator's judgement
    assert 'value="1" checked' not in page.content()


@pytest.mark.eager_tasks(reason="each import's job done in the upload's request, whose page then shows its outcome")
def test_lead_flow_from_creation_to_assignment_and_reopen(live_server, page, screenshot, tmp_path, django_user_model):
    django_user_model.objects.create_user(username="boss", password=PASSWORD, is_staff=True)
    login(page, live_server, "boss")
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Name").fill("Breakdown study")
    page.get_by_label("Slug").fill("bd-study")
    page.get_by_label("Preset").select_option("dbdc")
    page.get_by_role("button", name="Create project").click()
    page.wait_for_url("**/projects/bd-study/manage/")
    # a bad upload is refused with the importer's message and imports nothing
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "b1", "turns": [{"speaker": "S"}]}\n')
    page.get_by_label("File").set_input_files(str(bad))
    page.get_by_role("button", name="Import").click()
    assert "field turns[0].text: is missing" in page.locator("#upload-error").inner_text()
    assert Project.objects.get(slug="bd-study").dialogues.count() == 0
    good = tmp_path / "good.jsonl"
    good.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"b{i}",
                    "turns": [
                        {"speaker": "S", "text": "Hello"},
                        {"speaker": "U", "text": "hi"},
                        {"speaker": "S", "text": "Bye"},
                    ],
                }
            )
            + "\n"
            for i in range(4)
        )
    )
    page.get_by_label("File").set_input_files(str(good))
    page.get_by_role("button", name="Import").click()
    assert (
        "Imported 4 dialogues" in page.get_by_role("status").first.inner_text()
        or "Imported 4 dialogues" in page.content()
    )
    for name in ("a1", "a2", "a3"):
        page.get_by_label("Username").fill(name)
        page.locator("#id_password").fill(PASSWORD)
        page.get_by_role("button", name="Add member").click()
    page.locator("#id_annotators_per_dialogue").fill("2")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("button", name="Run the assignment").click()
    assert "Created 8 assignments" in page.content()
    rows = page.locator("#progress-annotators tbody tr").all_inner_texts()
    assigned = sorted(int(r.split("\t")[1]) for r in rows)
    assert assigned == [2, 3, 3]
    screenshot("lead-project")
    project = Project.objects.get(slug="bd-study")
    assert Membership.objects.filter(project=project, role="annotator").count() == 3
    # an annotator submits; the lead reopens the item; the annotator can change it again
    item = Assignment.objects.filter(dialogue__project=project, annotator__username="a1").first()
    judgements_save(
        assignment_id=item.pk,
        user=item.annotator,
        values=[Given("breakdown", 2, "X")],  # the opening prompt (post 0) is not asked about
        submit=True,
    )
    page.reload()
    # reopening asks first: cancelling changes nothing
    page.get_by_role("button", name=f"Reopen {item.dialogue.external_id} for a1").click()
    dialog = page.get_by_role("dialog")
    assert f"Reopen {item.dialogue.external_id} for a1?" in dialog.inner_text()
    dialog.get_by_role("button", name="Cancel").click()
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    # confirmed with a reason, the item is reopened and the annotator sees the reason on it
    page.get_by_role("button", name=f"Reopen {item.dialogue.external_id} for a1").click()
    dialog.get_by_label("Reason for a1").fill("Turn 3 looks like a breakdown to me.")
    screenshot("lead-reopen-confirm")
    dialog.get_by_role("button", name="Reopen").click()
    page.wait_for_load_state("networkidle")
    assert "with the reason: Turn 3 looks like a breakdown to me." in page.locator(".messages").inner_text()
    item.refresh_from_db()
    assert item.status == AssignmentStatus.IN_PROGRESS
    # removing a member asks first too
    page.get_by_role("button", name="Remove a3").click()
    assert "Remove a3 from Breakdown study?" in dialog.inner_text()
    dialog.get_by_role("button", name="Cancel").click()
    assert Membership.objects.get(project=project, user__username="a3").active
    page.context.clear_cookies()
    login(page, live_server, "a1")
    page.goto(f"{live_server.url}/items/{item.pk}/")
    assert "Turn 3 looks like a breakdown to me." in page.locator("#reopen-notice").inner_text()
    assert "UTC" in page.locator("#reopen-notice").inner_text()
    assert page.locator('input[name="j:breakdown:0"]').count() == 0
    radio(page, "breakdown", 2, "T")
    submit_and_wait(page)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    assert stored(item) == {("breakdown", 2, "T")}
