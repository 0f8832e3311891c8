"""A Prolific participant in real Chromium: the study link, consent, a quota of items, the completion
code and the redirect to the platform's completion URL; the same link again shows the completion page."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from annotator.models import Assignment, AssignmentStatus, Participant
from tests.factories import study_on_new_project

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete"
PID = "5f8e2a1c9b3d4e6f7a8b9c0d"


def answer_every_question(page) -> None:
    """Choose a value for every yes/no question of the item (NLPCC: one reply, unit 1)."""
    for name in page.eval_on_selector_all("input[type=radio][name^='j:']", "els => [...new Set(els.map(e => e.name))]"):
        value = "no" if name.startswith("j:severe_error") else "yes"
        page.locator(f'input[name="{name}"][value="{value}"]').check()


def test_a_prolific_participant_consents_does_the_quota_gets_the_code_and_is_sent_back(
    live_server, page, screenshot, tmp_path
):
    cache.clear()
    # given a study of 3 items per participant whose completion URL is Prolific's, with the lead's code
    work, study = study_on_new_project(
        tmp_path,
        dialogues=4,
        k=1,
        items_per_participant=3,
        consent_text="Your answers are used for research on chatbots.",
        completion_code="C1A2B3C4",
        completion_url=f"{PROLIFIC_COMPLETE}?cc={{code}}",
    )
    reached = []

    def prolific(route):  # stands in for Prolific: record the visit, answer with a page
        reached.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>Prolific: submission complete</h1>")

    page.route(re.compile(r"^https://app\.prolific\.com/.*"), prolific)
    study_url = f"{live_server.url}/study/{study.token}/?PROLIFIC_PID={PID}&STUDY_ID=st42&SESSION_ID=se42"

    # when the participant opens the link Prolific gives them: consent text and guidelines, no work yet
    page.goto(study_url)
    assert page.locator("#consent-text").inner_text().startswith("Your answers are used for research")
    assert work.project.guidelines[:30] in page.locator("#study-guidelines").inner_text()
    screenshot("study-consent")
    participant = Participant.objects.get(study=study, external_id=PID)
    assert participant.platform == {"STUDY_ID": "st42", "SESSION_ID": "se42"}
    assert not Assignment.objects.filter(annotator=participant.user).exists()

    # consenting starts the work: the first of the 3 items
    page.get_by_label(re.compile("I agree to take part")).check()
    page.get_by_role("button", name="Start").click()
    page.wait_for_url(re.compile(r"/items/\d+/$"))
    items = Assignment.objects.filter(annotator=participant.user)
    assert items.count() == 3

    # each item answered and submitted, the next one follows; after the last, the completion page
    for n in range(3):
        assert page.locator(".crumbs").inner_text().endswith(f"({n} of 3 submitted)")
        answer_every_question(page)
        page.get_by_role("button", name="Submit").click()
        if n < 2:
            page.wait_for_function(
                f"() => document.querySelector('.crumbs')?.innerText.endsWith('({n + 1} of 3 submitted)')"
            )
    code = page.locator("#completion-code")
    code.wait_for()
    assert code.inner_text() == "C1A2B3C4"
    screenshot("study-complete")
    assert set(items.values_list("status", flat=True)) == {AssignmentStatus.SUBMITTED}

    # then the browser is sent to Prolific's completion URL with the code
    page.wait_for_url(f"{PROLIFIC_COMPLETE}?cc=C1A2B3C4")
    assert reached == [f"{PROLIFIC_COMPLETE}?cc=C1A2B3C4"]

    # the same link again shows the completion page (and sends back again), never new work
    page.goto(study_url)
    assert page.locator("#completion-code").inner_text() == "C1A2B3C4"
    assert page.url == f"{live_server.url}/study/{study.token}/"
    page.wait_for_url(f"{PROLIFIC_COMPLETE}?cc=C1A2B3C4")
    assert Assignment.objects.filter(annotator=participant.user).count() == 3
    assert Participant.objects.filter(study=study).count() == 1
