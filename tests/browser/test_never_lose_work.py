"""Work is never lost, in real Chromium: two tabs on one item, a session ended mid-item, leaving the page
with a save in flight, Back after submitting, a refused submission, an invalid coherence order."""

from __future__ import annotations

import time

import pytest
from django.contrib.sessions.models import Session

from annotator.models import AssignmentStatus, Reordering
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_annotation import (
    COHERENCE,
    NLPCC,
    PASSWORD,
    STC3,
    login,
    open_item,
    radio,
    setup_item,
    stored,
    submit_and_wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SIGNED_OUT = "You were signed out: sign in again (your answers are kept)"
# arrow functions, not expressions: the page's Content-Security-Policy forbids evaluating strings
SAVED = "() => document.getElementById('save-status').textContent.startsWith('Draft saved')"


def shot(tab, name: str) -> None:
    """A screenshot of another tab than the ``screenshot`` fixture's page."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def nlpcc_keys(project) -> list[str]:
    return list(project.criteria.order_by("position").values_list("key", flat=True))


def answer_and_wait(tab, key, unit, value):
    radio(tab, key, unit, value)
    tab.wait_for_function(SAVED)


def eventually(check, timeout=15.0):
    """Poll ``check`` (the database, written by requests the browser sends on its own) until it holds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_two_tabs_editing_different_questions_both_keep_their_answers(
    live_server, page, screenshot, tmp_path, django_user_model
):
    # given one item open in two tabs of one browser
    project, _user, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    keys = nlpcc_keys(project)
    login(page, live_server, "ann")
    second = page.context.new_page()
    open_item(page, live_server, item)
    open_item(second, live_server, item)
    # when the tabs take turns answering different questions (each tab never reloaded)
    answers = {key: ("yes" if i % 2 else "no") for i, key in enumerate(keys)}
    for i, key in enumerate(keys[:5]):
        answer_and_wait(page, key, 1, answers[key])
        answer_and_wait(second, keys[5 + i], 1, answers[keys[5 + i]])
    # then every answer of both tabs is stored
    assert stored(item) == {(key, 1, value) for key, value in answers.items()}
    # and the second tab, told by its last save, shows the first tab's answers too, and says so
    assert second.locator(f'input[name="j:{keys[0]}:1"][value="{answers[keys[0]]}"]').is_checked()
    assert "given in another tab or window" in second.locator("#save-alert").inner_text()
    shot(second, "two-tabs-merged")
    submit_and_wait(second)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    assert stored(item) == {(key, 1, value) for key, value in answers.items()}


def test_the_same_question_edited_in_two_tabs_gives_the_stale_tab_a_conflict(
    live_server, page, screenshot, tmp_path, django_user_model
):
    project, _user, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    first_key, second_key = nlpcc_keys(project)[:2]
    login(page, live_server, "ann")
    stale = page.context.new_page()
    open_item(page, live_server, item)
    open_item(stale, live_server, item)
    # given the first tab answered the first question
    answer_and_wait(page, first_key, 1, "yes")
    # when the stale tab, which never saw that answer, answers the same question differently
    radio(stale, first_key, 1, "no")
    alert = stale.locator("#save-alert")
    alert.wait_for(state="visible")
    # then it says so plainly, names the question with both answers, and keeps its own answer visible
    text = alert.inner_text()
    assert "changed in another tab or window" in text and "Nothing was overwritten" in text
    assert "Severe error, turn 2 (system): Yes in the other tab or window, No here" in text
    assert stale.locator(f'input[name="j:{first_key}:1"][value="no"]').is_checked()
    assert stale.get_by_role("button", name="Reload to see the saved answers").is_visible()
    assert "Not saved" in stale.locator("#save-status").inner_text()
    shot(stale, "two-tabs-conflict")
    # and nothing was silently overwritten
    assert stored(item) == {(first_key, 1, "yes")}
    # an answer to another question given meanwhile in the stale tab is kept, and sent after the reload
    radio(stale, second_key, 1, "yes")
    assert stored(item) == {(first_key, 1, "yes")}
    stale.get_by_role("button", name="Reload to see the saved answers").click()
    stale.wait_for_function(SAVED)
    assert stale.locator(f'input[name="j:{first_key}:1"][value="yes"]').is_checked()
    assert stale.locator(f'input[name="j:{second_key}:1"][value="yes"]').is_checked()
    assert stored(item) == {(first_key, 1, "yes"), (second_key, 1, "yes")}
    # the first tab has not seen that answer: changing it there is a conflict too; "Keep my answers" wins
    radio(page, second_key, 1, "no")
    page.get_by_role("button", name="Keep my answers").wait_for()
    assert stored(item) == {(first_key, 1, "yes"), (second_key, 1, "yes")}
    page.get_by_role("button", name="Keep my answers").click()
    page.wait_for_function(SAVED)
    assert stored(item) == {(first_key, 1, "yes"), (second_key, 1, "no")}
    assert page.locator("#save-alert").is_hidden()


def test_a_session_ended_in_another_tab_then_signing_in_again_keeps_every_answer(
    live_server, page, screenshot, tmp_path, django_user_model
):
    _p, user, item = setup_item(tmp_path, django_user_model, "stc3", STC3, fmt="stc3")
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    page.select_option('select[name="j:nugget:0"]', "CNUG0")
    page.wait_for_function(SAVED)
    # given the person logs out in another tab
    other = page.context.new_page()
    other.goto(f"{live_server.url}/")
    other.get_by_role("button", name="Log out").click()
    other.wait_for_url("**/accounts/login/")
    # when they go on answering in the first tab
    page.select_option('select[name="j:nugget:1"]', "HNUG*")
    panel = page.locator("#signin-panel")
    panel.wait_for(state="visible")
    assert SIGNED_OUT in panel.inner_text()
    page.select_option('select[name="j:nugget:2"]', "CNUG*")
    for key, value in (("A", "2"), ("S", "1"), ("E", "0")):
        radio(page, key, 0, value)
    # then the answers wait in this browser, and Submit neither leaves the item nor loses anything
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('dialeval:draft:{user.pk}:{item.pk}')).pending")
    assert {name: entry["value"] for name, entry in kept.items()} == {
        "j:nugget:1": "HNUG*",
        "j:nugget:2": "CNUG*",
        "j:A:0": "2",
        "j:S:0": "1",
        "j:E:0": "0",
    }
    page.get_by_role("button", name="Submit").click()
    assert page.url.endswith(f"/items/{item.pk}/")
    assert "signed out" in page.locator("#save-status").inner_text()
    screenshot("signed-out-mid-item")
    assert stored(item) == {("nugget", 0, "CNUG0")}
    # when they sign in again in the other tab, this page sends the answers by itself
    login(other, live_server, "ann")
    page.wait_for_function(SAVED, timeout=15000)
    assert panel.is_hidden()
    expected = {("nugget", 0, "CNUG0"), ("nugget", 1, "HNUG*"), ("nugget", 2, "CNUG*"), ("A", 0, "2")}
    expected |= {("S", 0, "1"), ("E", 0, "0")}
    assert stored(item) == expected
    # and the item can be submitted (with the CSRF token that signing in renewed)
    submit_and_wait(page)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED and stored(item) == expected
    assert page.evaluate(f"localStorage.getItem('dialeval:draft:{user.pk}:{item.pk}')") is None


def test_an_expired_session_signing_in_on_the_page_sends_the_answers(
    live_server, page, screenshot, tmp_path, django_user_model
):
    project, _user, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    keys = nlpcc_keys(project)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    answer_and_wait(page, keys[0], 1, "no")
    # given the session expired on the server, and the browser lost its cookies too
    Session.objects.all().delete()
    page.context.clear_cookies()
    radio(page, keys[1], 1, "yes")
    page.locator("#signin-panel").wait_for(state="visible")
    # keys typed in the sign-in fields are text, never answers (y, n and 1 are hotkeys on this page)
    username = page.get_by_label("Username")
    username.click()
    username.press("Control+a")
    page.keyboard.type("ny1")
    assert not page.locator(f'input[name="j:{keys[2]}:1"]:checked').count()
    username.fill("ann")
    page.get_by_label("Password").fill("wrong-password")
    page.get_by_role("button", name="Sign in and send my answers").click()
    page.get_by_text("did not match").wait_for()
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in and send my answers").click()
    page.wait_for_function(SAVED, timeout=15000)
    assert stored(item) == {(keys[0], 1, "no"), (keys[1], 1, "yes")}
    # work carries on in the same page
    for key in keys[2:]:
        radio(page, key, 1, "yes")
    submit_and_wait(page)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED and len(stored(item)) == len(keys)


def test_answers_given_just_before_clicking_a_link_are_stored(live_server, page, tmp_path, django_user_model):
    project, _user, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    keys = nlpcc_keys(project)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    # given a slow connection: no save can be confirmed before the link is clicked
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 1500, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.type), d.accept()))
    # when three answers are given and a link is clicked at once
    for key in keys[:3]:
        radio(page, key, 1, "yes")
    page.get_by_role("link", name="your queue").click()
    page.wait_for_url("**/queue/")
    # then leaving asked first (a save was not confirmed), and every answer reached the server
    assert dialogs == ["beforeunload"]
    assert eventually(lambda: stored(item) == {(key, 1, "yes") for key in keys[:3]}), stored(item)


def test_back_after_submitting_shows_the_submitted_read_only_item(
    live_server, page, screenshot, tmp_path, django_user_model
):
    project, _user, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    for key in nlpcc_keys(project):
        radio(page, key, 1, "yes")
    submit_and_wait(page)
    assert page.url.endswith("/queue/")
    page.go_back()
    page.wait_for_load_state("networkidle")
    assert page.url.endswith(f"/items/{item.pk}/")
    assert "read-only" in page.locator("#read-only-notice").inner_text()
    assert "UTC" in page.locator("#read-only-notice").inner_text()
    assert page.locator("input[type=radio]:not([disabled])").count() == 0
    assert page.get_by_role("button", name="Submit").count() == 0
    screenshot("back-after-submit")


def test_a_refused_submission_names_turns_and_speakers_and_focuses_the_first(
    live_server, page, screenshot, tmp_path, django_user_model
):
    _p, _u, item = setup_item(tmp_path, django_user_model, "stc3", STC3, fmt="stc3")
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    page.select_option('select[name="j:nugget:0"]', "CNUG0")
    page.select_option('select[name="j:nugget:2"]', "CNUG*")
    radio(page, "A", 0, "1")
    page.get_by_role("button", name="Submit").click()
    alert = page.get_by_role("alert")
    # the message names the turn by its number and speaker, as the page shows it
    assert "Nugget type is missing for turn 2 (helpdesk)" in alert.inner_text()
    assert "Customer satisfaction is missing for the dialogue as a whole" in alert.inner_text()
    assert page.locator(".question.missing").count() == 3
    assert page.evaluate("document.activeElement.dataset.name") == "j:nugget:1"
    assert page.url.endswith(f"/items/{item.pk}/")
    assert "Turn 2" in page.locator("article.block").nth(1).inner_text()
    screenshot("submit-missing")
    # answering a highlighted question clears its mark
    page.select_option('select[name="j:nugget:1"]', "HNUG")
    assert page.locator(".question.missing").count() == 2


def test_an_invalid_coherence_order_is_never_reported_as_saved(live_server, page, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "coherence", COHERENCE)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    for shown_turn in range(len(item.shown_order)):  # the page numbers turns as shown
        radio(page, "turn_coherence", shown_turn, "3")
    radio(page, "overall", 0, "4")
    page.wait_for_function(SAVED)
    # moving the first turn down breaks the constraints: the order is not saved, and the page says why
    page.locator("#reorder-list li").nth(0).get_by_role("button", name="Move down").click()
    status = page.locator("#save-status")
    page.wait_for_function("() => !document.getElementById('save-status').textContent.startsWith('Saving')")
    assert "the order is not saved yet" in status.inner_text() and "Draft saved" not in status.inner_text()
    assert "first turn must be by A" in status.inner_text()
    assert "not saved yet" in page.locator("#reorder-status").inner_text()
    assert not Reordering.objects.filter(assignment=item).exists()
    # mended, the order is saved and only then reported saved
    page.locator("#reorder-list li").nth(1).get_by_role("button", name="Move up").click()
    page.wait_for_function(SAVED)
    assert Reordering.objects.get(assignment=item).submitted_order == item.shown_order
