"""Study participants in real Chromium against the live server: the time left and its warnings, a
participant past the time limit while another arrives, and a participant id that alone signs nobody in."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from annotator.models import Assignment, Judgement, Participant, ReleasedItem
from tests.factories import study_on_new_project
from tests.waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def fresh_rate_counts():
    cache.clear()


def open_and_start(page, url: str) -> None:
    """Open the study link, consent, and wait for the first item."""
    page.goto(url)
    page.get_by_label(re.compile("I agree to take part")).check()
    page.get_by_role("button", name="Start").click()
    page.wait_for_url(re.compile(r"/items/\d+/$"))


def deadline_in(participant: Participant, study, seconds: float) -> None:
    """Move the participant's start so that their deadline is ``seconds`` from now (negative: past)."""
    allocated = timezone.now() + timedelta(seconds=seconds) - timedelta(minutes=study.time_limit_minutes)
    Participant.objects.filter(pk=participant.pk).update(allocated_at=allocated)


def test_the_item_page_counts_down_warns_before_the_end_and_stops_taking_answers_at_it(
    live_server, page, screenshot, tmp_path
):
    _work, study = study_on_new_project(tmp_path, dialogues=4, k=1, items_per_participant=2, time_limit_minutes=30)
    open_and_start(page, f"{live_server.url}/study/{study.token}/?PROLIFIC_PID=timer-1&SESSION_ID=s1")
    participant = Participant.objects.get(external_id="timer-1")
    # the time left is shown, in minutes and seconds, with what happens at the end; no warning yet
    assert re.fullmatch(r"(29|30):\d\d", page.locator("#time-left").inner_text())
    assert "this page takes no more answers" in page.locator("#time-limit-rule").inner_text()
    assert page.locator("#time-announce").is_hidden()
    # four minutes before the end: the five-minute warning, in the alert region
    deadline_in(participant, study, 4 * 60)
    page.reload()
    announce = page.locator("#time-announce")
    announce.wait_for()
    assert announce.get_attribute("role") == "alert" and announce.get_attribute("data-warning") == "300"
    assert announce.inner_text().startswith("5 minutes left")
    assert re.fullmatch(r"[34]:\d\d", page.locator("#time-left").inner_text())
    screenshot("study-time-warning")
    # under a minute before the end: the last warning replaces it
    deadline_in(participant, study, 50)
    page.reload()
    page.wait_for_function("() => document.getElementById('time-announce').dataset.warning === '60'")
    assert page.locator("#time-announce").inner_text().startswith("1 minute left")
    # at the end the page says so plainly and takes no more answers
    deadline_in(participant, study, 2)
    page.reload()
    over = page.locator("#time-over")
    over.wait_for()
    assert "Your time is up" in over.inner_text() and "go to other participants" in over.inner_text()
    assert page.locator("#time-left").inner_text() == "0:00"
    assert page.locator("#annotation-form input[type=radio]").first.is_disabled()
    assert page.get_by_role("button", name="Submit").is_disabled()
    screenshot("study-time-over")


def test_a_participant_past_the_time_limit_while_another_arrives(
    live_server, browser, page, screenshot, tmp_path, settings
):
    # given a study of 2 dialogues, K = 1, 2 items each: the first participant takes both
    _work, study = study_on_new_project(tmp_path, dialogues=2, k=1, items_per_participant=2, time_limit_minutes=30)
    link = f"{live_server.url}/study/{study.token}/"
    open_and_start(page, f"{link}?PROLIFIC_PID=late-one&SESSION_ID=s-late")
    late = Participant.objects.get(external_id="late-one")
    first_item = int(re.search(r"/items/(\d+)/$", page.url).group(1))
    # who answers a question in time: it is saved
    page.locator('input[name="j:severe_error:1"][value="no"]').check()
    assert wait_for(lambda: Judgement.objects.filter(assignment_id=first_item, criterion__key="severe_error").exists())
    # when their time limit and its grace pass while the page is still open, and they answer again
    deadline_in(late, study, -settings.STUDY_SAVE_GRACE_SECONDS - 5)
    other_question = page.locator("#annotation-form input[type=radio]:not([name='j:severe_error:1'])").first
    other_question.check()
    # then the page says why the answer was not taken, and takes no more
    over = page.locator("#time-over")
    over.wait_for()
    assert "has run out: this answer was not saved" in page.locator("#time-over-detail").inner_text()
    assert page.locator("#annotation-form input[type=radio]").first.is_disabled()
    assert page.locator("#save-alert").is_hidden()  # said once, in the clock's box
    screenshot("study-late-answer-refused")
    assert Judgement.objects.filter(assignment_id=first_item).count() == 1  # the late answer was not stored
    # when another participant arrives in another browser, they get the place: both items
    newcomer_context = browser.new_context()
    newcomer = newcomer_context.new_page()
    try:
        open_and_start(newcomer, f"{link}?PROLIFIC_PID=next-one&SESSION_ID=s-next")
        taker = Participant.objects.get(external_id="next-one")
        assert Assignment.objects.filter(annotator=taker.user).count() == 2
        assert newcomer.locator("#time-left").is_visible()
    finally:
        newcomer_context.close()
    # and the answer given in time is kept with the released copy, nothing else of the late page
    kept = ReleasedItem.objects.get(participant=late, assignment_number=first_item)
    assert kept.judgements == [{"criterion": "severe_error", "unit": 1, "value": "no"}]
    assert not Assignment.objects.filter(annotator=late.user).exists()
    # the late participant's next save hears that the item went to someone else, and the study's page says why
    page.on("dialog", lambda dialog: dialog.accept())  # (autosave asks before leaving unsent answers)
    page.get_by_role("link", name="Continue to the study page").click()
    page.wait_for_url(link)
    message = page.locator("#study-message")
    assert message.get_attribute("data-kind") == "timed_out"
    assert "The time for this study has run out" in message.inner_text()
    page.goto(f"{live_server.url}/items/{first_item}/")
    page.wait_for_url(link)


def test_a_participant_id_alone_is_refused_in_another_browser_and_the_session_value_or_code_lets_them_in(
    live_server, browser, page, tmp_path
):
    _work, study = study_on_new_project(tmp_path, dialogues=4, k=1, items_per_participant=2)
    link = f"{live_server.url}/study/{study.token}/"
    owner_url = f"{link}?PROLIFIC_PID=bound-1&STUDY_ID=st&SESSION_ID=session-1"
    page.goto(owner_url)
    code = page.locator("#return-code").inner_text()
    page.get_by_label(re.compile("I agree to take part")).check()
    page.get_by_role("button", name="Start").click()
    page.wait_for_url(re.compile(r"/items/\d+/$"))
    assert page.locator("#item-return-code").inner_text().endswith(code)
    item_url = page.url
    for query, works in (
        ("?PROLIFIC_PID=bound-1", False),
        ("?PROLIFIC_PID=bound-1&SESSION_ID=guessed", False),
        ("?PROLIFIC_PID=bound-1&STUDY_ID=st&SESSION_ID=session-1", True),
    ):
        context = browser.new_context()
        other = context.new_page()
        try:
            response = other.goto(link + query)
            if works:  # the same Prolific submission on another device: the item left to do
                assert other.url == item_url
            else:  # the id alone: refused with a page that says what to do, not signed in
                assert response.status == 403
                assert "started in another browser" in other.locator("#study-message").inner_text()
                assert other.goto(item_url).url.startswith(f"{live_server.url}/accounts/login/")
        finally:
            context.close()
    # with the return code typed on the refusal page, another browser continues (and stays bound)
    context = browser.new_context()
    other = context.new_page()
    try:
        other.goto(f"{link}?PROLIFIC_PID=bound-1")
        other.get_by_label("Return code").fill("WRONG-CODE")
        other.get_by_role("button", name="Continue").click()
        assert "That return code is not right" in other.locator("#return-code-error").inner_text()
        other.get_by_label("Return code").fill(code.lower())
        other.get_by_role("button", name="Continue").click()
        other.wait_for_url(item_url)
        other.context.clear_cookies(name="sessionid")
        other.goto(f"{link}?PROLIFIC_PID=bound-1")
        assert other.url == item_url
    finally:
        context.close()
