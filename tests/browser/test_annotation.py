"""Annotators complete one item of every judgement type in real Chromium; the database holds exactly that."""

from __future__ import annotations

import json
import re
import time

import pytest

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Judgement, Reordering
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create
from tests.browser.assertions import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-good-password-42"


def login(page, live_server, username):
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")


def setup_item(tmp_path, django_user_model, preset, dialogues, username="ann", fmt="jsonl", sets=1):
    project = project_create(slug=f"{preset}-b", preset=preset, annotators_per_dialogue=1)
    path = tmp_path / ("in.jsonl" if fmt == "jsonl" else "in.json")
    path.write_text("".join(json.dumps(d) + "\n" for d in dialogues) if fmt == "jsonl" else json.dumps(dialogues))
    dialogues_import(project=project, paths=[path], fmt=fmt)
    user = django_user_model.objects.create_user(username=username, password=PASSWORD)
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project, sets=sets)
    return project, user, Assignment.objects.get(annotator=user, dialogue__project=project)


def stored(assignment):
    return set(Judgement.objects.filter(assignment=assignment).values_list("criterion__key", "unit", "value"))


def open_item(page, live_server, assignment):
    page.goto(f"{live_server.url}/items/{assignment.pk}/")


def radio(page, key, unit, value):
    page.locator(f'input[name="j:{key}:{unit}"][value="{value}"]').check()


SUBMISSION_SETTLED = """() => {
    const form = document.getElementById('annotation-form');
    return !form || form.dataset.submitting !== 'true';
}"""


def wait_for_submission(page):
    """The page submits with fetch, then goes to the next item; a refused submission stays on the item."""
    page.wait_for_function(SUBMISSION_SETTLED)
    page.wait_for_load_state("networkidle")


def submit_and_wait(page):
    page.get_by_role("button", name="Submit").click()
    wait_for_submission(page)


STC3 = [
    {
        "id": "s1",
        "turns": [
            {"sender": "customer", "utterances": ["my card is blocked", "since today"]},
            {"sender": "helpdesk", "utterances": ["please call 0800"]},
            {"sender": "customer", "utterances": ["thanks!"]},
        ],
    }
]


def test_stc3_dialogue_ratings_and_turn_nuggets(live_server, page, screenshot, tmp_path, django_user_model):
    _p, _user, item = setup_item(tmp_path, django_user_model, "stc3", STC3, fmt="stc3")
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    # the helpdesk turn offers only helpdesk nugget types
    options = page.locator('select[name="j:nugget:1"] option').all_inner_texts()
    assert [o.split(":")[0] for o in options[1:]] == ["HNUG", "HNUG*", "HNaN"]
    page.select_option('select[name="j:nugget:0"]', "CNUG0")
    page.select_option('select[name="j:nugget:1"]', "HNUG*")
    page.select_option('select[name="j:nugget:2"]', "CNUG*")
    page.get_by_role("group", name="Task accomplishment").get_by_label("2: very good").check()
    radio(page, "S", 0, "1")
    radio(page, "E", 0, "0")
    screenshot("annotate-stc3")
    submit_and_wait(page)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    assert stored(item) == {
        ("nugget", 0, "CNUG0"),
        ("nugget", 1, "HNUG*"),
        ("nugget", 2, "CNUG*"),
        ("A", 0, "2"),
        ("S", 0, "1"),
        ("E", 0, "0"),
    }


DCH1 = [
    {
        "id": "h1",
        "turns": [
            {"speaker": "customer", "text": "phone broken"},
            {"speaker": "customer", "text": "screen black"},
            {"speaker": "helpdesk", "text": "send it to us"},
            {"speaker": "customer", "text": "ok thanks"},
        ],
    }
]


def test_dch1_post_nuggets_are_grouped_into_nuggets(live_server, page, screenshot, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "dch1", DCH1)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    for unit, label in enumerate(["CNUG0", "CNUG0", "HNUG*", "NaN"]):
        page.select_option(f'select[name="j:nugget:{unit}"]', label)
    # two consecutive customer posts with one label are shown as one nugget
    badges = page.locator(".nugget-badge").all_inner_texts()
    assert badges == ["Nugget 1: CNUG0", "Nugget 2: HNUG*"]
    assert page.locator(".post.nugget-cont").count() == 1
    for key, value in (("TS", "1"), ("TA", "0"), ("CS", "-1"), ("HA", "1"), ("CA", "-1")):
        radio(page, key, 0, value)
    screenshot("annotate-dch1")
    submit_and_wait(page)
    assert stored(item) == {
        ("nugget", 0, "CNUG0"),
        ("nugget", 1, "CNUG0"),
        ("nugget", 2, "HNUG*"),
        ("nugget", 3, "NaN"),
        ("TS", 0, "1"),
        ("TA", 0, "0"),
        ("CS", 0, "-1"),
        ("HA", 0, "1"),
        ("CA", 0, "-1"),
    }


COHERENCE = [{"id": "c1", "turns": [{"speaker": "AB"[t % 2], "text": f"turn {t}"} for t in range(6)]}]


def test_coherence_turn_by_turn_then_overall_then_reordering_by_drag(
    live_server, page, screenshot, tmp_path, django_user_model
):
    _p, _u, item = setup_item(tmp_path, django_user_model, "coherence", COHERENCE)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    shown = item.shown_order  # source turns in shown order: the server's secret, the page numbers turns as shown
    blocks = page.locator("article.block")
    # only the first turn is visible; the next appears once the current one is rated
    assert [blocks.nth(i).is_visible() for i in range(6)] == [True] + [False] * 5
    assert not page.get_by_role("button", name="Submit").is_visible()
    for position in range(6):
        radio(page, "turn_coherence", position, str(1 + position % 5))
        if position + 1 < 6:
            assert blocks.nth(position + 1).is_visible()
    radio(page, "turn_coherence", 0, "5")  # earlier ratings can be changed
    radio(page, "overall", 0, "6")
    # drag the first A turn below a B turn: the order breaks the constraints and submit is disabled
    items = page.locator("#reorder-list li")
    items.nth(0).drag_to(items.nth(1))
    assert "cannot be submitted" in page.locator("#reorder-status").inner_text()
    assert page.get_by_role("button", name="Submit").is_disabled()
    # mend it by dragging the same turn back to the top: the order shown again, which counts once confirmed
    page.locator("#reorder-list li").nth(1).drag_to(page.locator("#reorder-list li").nth(0))
    assert (
        page.locator("#reorder-status").inner_text() in ("The order is valid.", "")
        or "Moved" in page.locator("#reorder-status").inner_text()
        or "still in the order they were shown" in page.locator("#reorder-status").inner_text()
    )
    # now put the turns back in their original order using drags (the test knows the key; the page does not)
    original = [shown.index(t) for t in range(6)]  # shown numbers in source order
    for target in range(6):
        current = [int(x) for x in page.locator("#reorder-list li").evaluate_all("els => els.map(e => e.dataset.turn)")]
        index = current.index(original[target])
        if index != target:
            page.locator("#reorder-list li").nth(index).drag_to(page.locator("#reorder-list li").nth(target))
    final = [int(x) for x in page.locator("#reorder-list li").evaluate_all("els => els.map(e => e.dataset.turn)")]
    assert final == original
    assert page.get_by_role("button", name="Submit").is_enabled()
    screenshot("annotate-coherence")
    submit_and_wait(page)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    expected = {("turn_coherence", turn, str(1 + p % 5)) for p, turn in enumerate(shown)}
    expected = {(k, u, "5" if u == shown[0] else v) for k, u, v in expected} | {("overall", 0, "6")}
    assert stored(item) == expected
    assert Reordering.objects.get(assignment=item).submitted_order == list(range(6))


def test_reordering_with_move_buttons_only(live_server, page, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "coherence", COHERENCE)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    shown = item.shown_order  # the test knows the key to check the result; the page numbers turns as shown
    for position in range(6):
        radio(page, "turn_coherence", position, "3")
    radio(page, "overall", 0, "4")

    def current():  # source turns in the list's order
        return [
            shown[int(x)] for x in page.locator("#reorder-list li").evaluate_all("els => els.map(e => e.dataset.turn)")
        ]

    # moving a turn by one place breaks alternation: the live message says so and submit is disabled
    page.locator("#reorder-list li").nth(0).get_by_role("button", name="Move down").click()
    assert "cannot be submitted" in page.locator("#reorder-status").inner_text()
    assert page.get_by_role("button", name="Submit").is_disabled()
    page.locator("#reorder-list li").nth(1).get_by_role("button", name="Move up").click()
    # sort by swapping turns of one speaker: [a, b, x] -> move x up twice -> [x, a, b] -> move a down -> [x, b, a]
    while current() != list(range(6)):
        order = current()
        i = next(i for i in range(2, 6) if order[i] < order[i - 2])
        row = page.locator(f'#reorder-list li[data-turn="{shown.index(order[i])}"]')
        row.get_by_role("button", name="Move up").click()
        row.get_by_role("button", name="Move up").click()
        page.locator(f'#reorder-list li[data-turn="{shown.index(order[i - 2])}"]').get_by_role(
            "button", name="Move down"
        ).click()
    assert (
        "valid" in page.locator("#reorder-status").inner_text()
        or "Moved" in page.locator("#reorder-status").inner_text()
    )
    submit_and_wait(page)
    assert Reordering.objects.get(assignment=item).submitted_order == list(range(6))


DBDC = [
    {
        "id": "b1",
        "turns": [
            {"speaker": "S", "text": "Hello!"},
            {"speaker": "U", "text": "hi"},
            {"speaker": "S", "text": "I like trains."},
            {"speaker": "U", "text": "what?"},
            {"speaker": "S", "text": "Trains are fast."},
        ],
    }
]


def test_breakdown_shows_the_dialogue_up_to_each_system_turn(
    live_server, page, screenshot, tmp_path, django_user_model
):
    _p, _u, item = setup_item(tmp_path, django_user_model, "dbdc", DBDC)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    posts = page.locator(".post")
    # the opening system prompt responds to nobody and is not asked about (DBDC3): the first
    # question is on turn 2, shown with the turns before it
    assert page.locator('input[name="j:breakdown:0"]').count() == 0
    assert [posts.nth(i).is_visible() for i in range(5)] == [True, True, True, False, False]
    page.get_by_label("B: breakdown").nth(0).check()
    assert [posts.nth(i).is_visible() for i in range(5)] == [True] * 5
    page.locator('input[name="j:breakdown:4"][value="T"]').check()
    screenshot("annotate-dbdc")
    submit_and_wait(page)
    assert stored(item) == {("breakdown", 2, "X"), ("breakdown", 4, "T")}


NLPCC = [
    {
        "id": "n1",
        "turns": [
            {"speaker": "user", "text": "Do you have parents?"},
            {"speaker": "system", "text": "I am a robot, but I have friends!"},
        ],
    }
]


def test_nlpcc_reply_questions(live_server, page, screenshot, tmp_path, django_user_model):
    project, _u, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    keys = list(project.criteria.values_list("key", flat=True))
    answers = {key: ("no" if key == "severe_error" or i % 3 == 0 else "yes") for i, key in enumerate(keys)}
    for key, value in answers.items():
        radio(page, key, 1, value)
    screenshot("annotate-nlpcc")
    submit_and_wait(page)
    assert stored(item) == {(key, 1, value) for key, value in answers.items()}


def test_queue_progress_and_resume_after_reload(live_server, page, screenshot, tmp_path, django_user_model):
    dialogues = STC3 + [dict(STC3[0], id="s2"), dict(STC3[0], id="s3")]
    project = project_create(slug="q", preset="stc3", annotators_per_dialogue=1)
    path = tmp_path / "q.json"
    path.write_text(json.dumps(dialogues))
    dialogues_import(project=project, paths=[path])
    user = django_user_model.objects.create_user(username="ann", password=PASSWORD)
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project)
    login(page, live_server, "ann")
    page.goto(f"{live_server.url}/projects/q/queue/")
    assert page.locator("#queue-progress").get_attribute("value") == "0"
    page.get_by_role("link", name="Start the next item").click()
    page.select_option('select[name="j:nugget:0"]', "CNUG")
    radio(page, "A", 0, "-1")
    # a locator assertion, not wait_for_function: the page's Content-Security-Policy forbids evaluating strings
    expect(page.locator("#save-status")).to_have_text(re.compile(r"^Draft saved"))
    # both answers are on the server before the reload (each change is its own save)
    item = Assignment.objects.get(pk=int(re.search(r"/items/(\d+)/", page.url).group(1)))
    for _ in range(300):
        if {("nugget", 0, "CNUG"), ("A", 0, "-1")} <= stored(item):
            break
        time.sleep(0.1)
    assert {("nugget", 0, "CNUG"), ("A", 0, "-1")} <= stored(item), "the answers' saves did not arrive in 30 s"
    url = page.url
    page.reload()
    expect(page.locator('select[name="j:nugget:0"]')).to_have_value("CNUG")
    expect(page.locator('input[name="j:A:0"][value="-1"]')).to_be_checked()
    page.goto(f"{live_server.url}/projects/q/queue/")
    assert page.get_by_role("link", name="Continue where you left off").get_attribute("href") in url
    assert "In progress" in page.locator("table").inner_text()
    screenshot("queue")
    draft = Assignment.objects.get(annotator=user, status=AssignmentStatus.IN_PROGRESS)
    assert stored(draft) == {("nugget", 0, "CNUG"), ("A", 0, "-1")}
    # submitting with a gap names what is missing and keeps the draft
    page.get_by_role("link", name="Continue where you left off").click()
    submit_and_wait(page)
    assert "is missing" in page.get_by_role("alert").inner_text()
    assert stored(draft) == {("nugget", 0, "CNUG"), ("A", 0, "-1")}


def test_a_rating_form_completed_by_keyboard_only(live_server, page, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    page.locator('input[name="j:severe_error:1"]').first.focus()
    for _question in range(10):
        page.keyboard.press("Space")  # choose "Yes", the focused first option
        page.keyboard.press("ArrowRight")  # move the choice to "No"
        page.keyboard.press("Tab")  # next question
    page.keyboard.press("Enter")  # the focus is on Submit
    wait_for_submission(page)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    assert {v for _k, _u, v in stored(item)} == {"no"} and len(stored(item)) == 10


def test_answers_given_before_the_pages_script_ran_are_saved(live_server, page, tmp_path, django_user_model):
    """On a slow connection the form can be answered before the autosave script has run: those answers are
    changes like any other, saved once the script starts (not taken for what the server had)."""
    _project, _user, assignment = setup_item(tmp_path, django_user_model, "stc3", STC3, fmt="stc3")
    login(page, live_server, "ann")
    held = []
    page.route("**/autosave/view.js", lambda route: held.append(route))  # the script is held back
    # deferred scripts run before DOMContentLoaded and "load": wait for the form's elements only
    page.goto(f"{live_server.url}/items/{assignment.pk}/", wait_until="commit")
    page.locator('input[name="j:A:0"][value="-1"]').wait_for()
    page.select_option('select[name="j:nugget:0"]', "CNUG")
    radio(page, "A", 0, "-1")
    assert stored(assignment) == set() and len(held) == 1
    held[0].continue_()  # now the script arrives and starts
    expect(page.locator("#save-status")).to_have_text(re.compile(r"^Draft saved"))
    for _ in range(100):
        if {("nugget", 0, "CNUG"), ("A", 0, "-1")} <= stored(assignment):
            break
        time.sleep(0.1)
    assert {("nugget", 0, "CNUG"), ("A", 0, "-1")} <= stored(assignment)
