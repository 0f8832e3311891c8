"""Work is never lost, in real Chromium: two tabs on one item (several differing answers, chosen one by
one), a session ended mid-item (and Submit pressed meanwhile), each refused save saying its reason,
leaving the page with a save in flight, Back after submitting, a refused submission, an invalid
coherence order."""

from __future__ import annotations

import time

import pytest
from django.contrib.sessions.models import Session

from annotator.models import Assignment, AssignmentStatus, Membership, Reordering
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


def offline(tab):
    """Cut one tab's network, leaving the other tabs of its browser alone; call the answer to give it back."""
    cdp = tab.context.new_cdp_session(tab)
    cdp.send("Network.enable")

    def emulate(is_offline: bool) -> None:
        conditions = {"offline": is_offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
        cdp.send("Network.emulateNetworkConditions", conditions)

    emulate(True)
    return lambda: emulate(False)


def test_two_tabs_with_several_differing_answers_list_them_all_and_store_each_choice(
    live_server, page, screenshot, tmp_path, django_user_model
):
    project, _user, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    keys = nlpcc_keys(project)
    login(page, live_server, "ann")
    stale = page.context.new_page()
    open_item(page, live_server, item)
    open_item(stale, live_server, item)
    # given the stale tab lost its connection and answers three questions (and a fourth one of its own)
    back_online = offline(stale)
    for key in keys[:3]:
        radio(stale, key, 1, "no")
    radio(stale, keys[5], 1, "yes")
    stale.wait_for_function("() => document.getElementById('save-status').textContent.includes('no connection')")
    # while the first tab answers those three and one more, all saved
    for key in keys[:4]:
        answer_and_wait(page, key, 1, "yes")
    saved_elsewhere = {(key, 1, "yes") for key in keys[:4]}
    assert stored(item) == saved_elsewhere
    # when the stale tab is back online
    back_online()
    alert = stale.locator("#save-alert[data-kind=conflict]")
    alert.wait_for(state="visible", timeout=20000)
    # then it lists every question whose saved answer differs from what it saw, each with both values
    rows = stale.locator("#save-alert li[data-conflict]")
    assert sorted(rows.evaluate_all("rows => rows.map(r => r.dataset.conflict)")) == sorted(
        f"j:{key}:1" for key in keys[:4]
    )
    for key in keys[:3]:
        row = stale.locator(f'#save-alert li[data-conflict="j:{key}:1"]')
        assert "Yes saved in another tab or window, No here" in row.inner_text()
    fourth = stale.locator(f'#save-alert li[data-conflict="j:{keys[3]}:1"]').inner_text()
    assert "Yes saved in another tab or window, no answer here" in fourth
    assert stale.locator(f'input[name="j:{keys[0]}:1"][value="no"]').is_checked()  # its own answers stay shown
    shot(stale, "two-tabs-conflict")
    # and nothing of the stale tab was sent, not even its answer that clashes with nothing
    assert stored(item) == saved_elsewhere
    # an unchosen answer holds the save back
    stale.get_by_role("button", name="Save my choices").click()
    assert "Choose a value for 3 more answers" in alert.inner_text()
    assert stored(item) == saved_elsewhere
    # when the person chooses answer by answer
    choices = {keys[0]: "mine", keys[1]: "saved", keys[2]: "mine"}
    for key, choice in choices.items():
        stale.locator(f'#save-alert li[data-conflict="j:{key}:1"] input[value="{choice}"]').check()
    stale.get_by_role("button", name="Save my choices").click()
    stale.wait_for_function(SAVED)
    # then exactly the chosen values are stored, with the stale tab's own other answer
    expected = {(keys[0], 1, "no"), (keys[1], 1, "yes"), (keys[2], 1, "no"), (keys[3], 1, "yes"), (keys[5], 1, "yes")}
    assert stored(item) == expected
    assert stale.locator("#save-alert").is_hidden()
    assert stale.locator(f'input[name="j:{keys[1]}:1"][value="yes"]').is_checked()
    assert stale.locator(f'input[name="j:{keys[3]}:1"][value="yes"]').is_checked()
    # and the first tab, which has not seen those choices, cannot write over them unseen either
    radio(page, keys[5], 1, "no")
    page.locator("#save-alert[data-kind=conflict]").wait_for(state="visible")
    listed = page.locator("#save-alert li[data-conflict]").evaluate_all("rows => rows.map(r => r.dataset.conflict)")
    assert sorted(listed) == sorted(f"j:{key}:1" for key in (keys[0], keys[2], keys[5]))
    assert stored(item) == expected


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
    # when they sign in again in the other tab, this page sends the answers and the submission by itself
    # (with the CSRF token that signing in renewed), then goes on to the queue
    login(other, live_server, "ann")
    page.wait_for_url("**/queue/", timeout=15000)
    expected = {("nugget", 0, "CNUG0"), ("nugget", 1, "HNUG*"), ("nugget", 2, "CNUG*"), ("A", 0, "2")}
    expected |= {("S", 0, "1"), ("E", 0, "0")}
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


def test_submit_pressed_while_signed_out_is_carried_out_after_signing_in_on_the_page(
    live_server, page, screenshot, tmp_path, django_user_model
):
    project, user, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    keys = nlpcc_keys(project)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    for key in keys[:-1]:
        radio(page, key, 1, "yes")
    page.wait_for_function(SAVED)
    # given the session ended on the server (and the browser lost its cookies)
    Session.objects.all().delete()
    page.context.clear_cookies()
    # when the person gives the last answer and presses Submit
    radio(page, keys[-1], 1, "no")
    page.locator("#signin-panel").wait_for(state="visible")
    page.get_by_role("button", name="Submit").click()
    # then the page says the item waits to be submitted, and keeps that intent with the answers
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Not submitted yet')")
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('dialeval:draft:{user.pk}:{item.pk}'))")
    assert kept["submit"] is True and kept["pending"][f"j:{keys[-1]}:1"]["value"] == "no"
    item.refresh_from_db()
    assert item.status != AssignmentStatus.SUBMITTED
    screenshot("submit-while-signed-out")
    # when they sign in on the page
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in and send my answers").click()
    # then the item is submitted (not only saved) and the page goes on to the queue
    page.wait_for_url("**/queue/", timeout=15000)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    assert stored(item) == {(key, 1, "yes") for key in keys[:-1]} | {(keys[-1], 1, "no")}
    assert "Submitted dialogue" in page.locator("body").inner_text()
    assert page.evaluate(f"localStorage.getItem('dialeval:draft:{user.pk}:{item.pk}')") is None


def _released(item, django_user_model):
    other = django_user_model.objects.create_user(username="someone-else", password=PASSWORD)
    Assignment.objects.filter(pk=item.pk).update(annotator=other)


def _removed(item, _users):
    Membership.objects.filter(project=item.dialogue.project).update(active=False)


def _submitted_elsewhere(item, _users):
    Assignment.objects.filter(pk=item.pk).update(status=AssignmentStatus.SUBMITTED)


def _study_closed(page):
    # the server's words for a closed study or a time over (410) are shown as they come
    page.route(
        "**/api/assignments/*/judgements/",
        lambda route: route.fulfill(
            status=410, json={"detail": "The time for this study is over.", "reason": "closed"}
        ),
    )


def _no_connection(page):
    page.route("**/api/assignments/*/judgements/", lambda route: route.abort())


SAVE_ERRORS = {
    "404 released": (_released, None, "this item is no longer yours"),
    "403 removed": (_removed, None, "You are no longer a member of project nlpcc-b"),
    "409 submitted": (_submitted_elsewhere, None, "This item has been submitted"),
    "410 closed": (None, _study_closed, "Not saved: The time for this study is over."),
    "no connection": (None, _no_connection, "no connection"),
}


@pytest.mark.parametrize("case", SAVE_ERRORS, ids=list(SAVE_ERRORS))
def test_every_save_error_says_its_reason_and_keeps_the_answers_visible(
    live_server, page, tmp_path, django_user_model, case
):
    project, _user, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    keys = nlpcc_keys(project)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    answer_and_wait(page, keys[0], 1, "yes")
    change_server, change_page, words = SAVE_ERRORS[case]
    if change_server:
        change_server(item, django_user_model)
    if change_page:
        change_page(page)
    radio(page, keys[1], 1, "no")
    page.wait_for_function(
        "words => (document.getElementById('save-alert').innerText + document.getElementById('save-status').innerText)"
        ".includes(words)",
        arg=words,
    )
    shown = page.locator("#save-alert").inner_text() + page.locator("#save-status").inner_text()
    if case != "no connection":
        assert "no connection" not in shown
    assert page.locator(f'input[name="j:{keys[0]}:1"][value="yes"]').is_checked()
    assert page.locator(f'input[name="j:{keys[1]}:1"][value="no"]').is_checked()
    assert (keys[1], 1, "no") not in stored(item)


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
    # the shuffle shown is valid here: the ratings are saved, the order waits for the annotator's confirmation
    page.wait_for_function(
        "() => /^(Draft saved|Answers saved at)/.test(document.getElementById('save-status').textContent)"
    )
    # moving the first turn down breaks the constraints: the order is not saved, and the page says why
    page.locator("#reorder-list li").nth(0).get_by_role("button", name="Move down").click()
    status = page.locator("#save-status")
    page.wait_for_function("() => !document.getElementById('save-status').textContent.startsWith('Saving')")
    assert "the order is not valid yet" in status.inner_text() and "Draft saved" not in status.inner_text()
    # the bar stays short: why the order is wrong is said beside the list
    assert "first turn must be by A" in page.locator("#reorder-status").inner_text()
    assert "not saved yet" in page.locator("#reorder-status").inner_text()
    assert not Reordering.objects.filter(assignment=item).exists()
    # mended back to the order shown, the order is an answer once confirmed, and only then saved
    page.locator("#reorder-list li").nth(1).get_by_role("button", name="Move up").click()
    assert "not confirmed yet" in status.inner_text()
    assert not Reordering.objects.filter(assignment=item).exists()
    page.get_by_label("The order shown is my answer: it reads most coherently as it is.").check()
    page.wait_for_function(SAVED)
    assert Reordering.objects.get(assignment=item).submitted_order == item.shown_order
