"""Four things annotators met on the item and queue pages, each reproduced in real Chromium against the live
server: a conflict's "keep mine" on a question this tab never answered, the keys after a study's time is up,
focus under the sticky Submit bar, and the queue of a project whose budget is spent."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotator.handout.services.adaptive import adaptive_budget_update
from annotator.models import Assignment, Judgement, Participant, Role
from annotator.pairwise.services.settings import pairwise_settings_save
from annotator.services.projects import membership_add
from tests.browser.test_annotation import DCH1, PASSWORD, login, open_item, radio, setup_item, stored
from tests.browser.test_never_lose_work import SAVED, offline
from tests.browser.test_study_time_limit import deadline_in, open_and_start
from tests.factories import project_with_work, study_on_new_project
from tests.waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_keeping_mine_on_a_question_this_tab_never_answered_keeps_the_other_tabs_answer(
    live_server, page, tmp_path, django_user_model
):
    _p, _u, item = setup_item(tmp_path, django_user_model, "stc3", STC3_LONG[:1], fmt="stc3")
    login(page, live_server, "ann")
    stale = page.context.new_page()
    open_item(page, live_server, item)
    open_item(stale, live_server, item)
    # tab A loses its connection and answers A; tab B answers A and S, saved
    back_online = offline(stale)
    radio(stale, "A", 0, "-2")
    stale.wait_for_function("() => document.getElementById('save-status').textContent.includes('no connection')")
    radio(page, "A", 0, "2")
    page.wait_for_function(SAVED)
    radio(page, "S", 0, "1")
    page.wait_for_function(SAVED)
    assert stored(item) == {("A", 0, "2"), ("S", 0, "1")}
    # when tab A is back, and its person keeps their own answer wherever the dialog offers it
    back_online()
    alert = stale.locator("#save-alert[data-kind=conflict]")
    alert.wait_for(state="visible", timeout=20000)
    for choice in stale.locator('#save-alert input[value="mine"]').all():
        choice.check()
    stale.get_by_role("button", name="Save my choices").click()
    stale.wait_for_function(SAVED)
    # then their A is stored, and the S they never answered keeps the other tab's answer
    assert stored(item) == {("A", 0, "-2"), ("S", 0, "1")}
    assert stale.locator('input[name="j:S:0"][value="1"]').is_checked()


def test_after_the_time_is_up_keys_change_no_answer_and_nothing_is_saved(live_server, page, tmp_path):
    _work, study = study_on_new_project(tmp_path, dialogues=4, k=1, items_per_participant=2, time_limit_minutes=30)
    open_and_start(page, f"{live_server.url}/study/{study.token}/?PROLIFIC_PID=keys-1&SESSION_ID=s1")
    participant = Participant.objects.get(external_id="keys-1")
    deadline_in(participant, study, 3)  # the grace after it still takes saves on the server
    page.reload()
    page.locator("#time-over").wait_for(timeout=15000)
    checked_before = page.locator("#annotation-form input[type=radio]:checked").count()
    question = page.locator("[data-question]").first
    question.focus()
    for key in ("1", "2", "y", "n", "j", "1"):
        page.keyboard.press(key)
    assert page.locator("#annotation-form input[type=radio]:checked").count() == checked_before
    assert page.locator("#save-status").inner_text() == ""
    item = Assignment.objects.filter(annotator=participant.user).first()
    assert not wait_for(lambda: Judgement.objects.filter(assignment__annotator=participant.user).exists(), timeout=3)
    assert item is not None


STC3_LONG = [
    {
        "id": "long",
        "turns": [
            {"sender": "customer" if t % 2 == 0 else "helpdesk", "utterances": [f"turn {t}: " + "words " * 30]}
            for t in range(10)
        ],
    }
]


def hidden_under_the_bar(page) -> bool:
    """Whether the focused question is (partly) under the sticky Submit bar or out of the window."""
    return page.evaluate(
        """() => {
            const el = document.activeElement.closest('[data-question], #reorder-list') || document.activeElement;
            const box = el.getBoundingClientRect();
            const bar = document.getElementById('actions').getBoundingClientRect();
            return box.top < 0 || box.bottom > bar.top + 1;
        }"""
    )


@pytest.mark.parametrize(
    "preset, dialogues, fmt, width, keys",
    [
        ("stc3", STC3_LONG, "stc3", 1280, ["1", "2", "1", "2", "1", "2"]),
        ("dch1", DCH1, "jsonl", 390, ["1", "1", "2", "4", "3", "2", "1", "3", "k", "k", "j"]),
    ],
    ids=["stc3-1280px", "dch1-390px"],
)
def test_a_question_the_keys_move_to_is_never_under_the_submit_bar(
    live_server, browser, tmp_path, django_user_model, preset, dialogues, fmt, width, keys
):
    _p, _u, item = setup_item(tmp_path, django_user_model, preset, dialogues, fmt=fmt)
    context = browser.new_context(viewport={"width": width, "height": 720 if width > 600 else 844})
    page = context.new_page()
    try:
        login(page, live_server, "ann")
        open_item(page, live_server, item)
        hidden = []
        for key in keys:
            page.keyboard.press(key)
            if hidden_under_the_bar(page):
                hidden.append(key)
        assert not hidden, f"{len(hidden)} of {len(keys)} key presses left the focused question under the bar"
    finally:
        context.close()


def test_annotators_of_a_project_whose_budget_is_spent_read_that_it_needs_no_more_answers(
    live_server, page, browser, tmp_path
):
    work = project_with_work("nlpcc", slug="spent", annotators=2, assign=False)
    adaptive_budget_update(project=work.project, adaptive=True, min_k=1, max_k=2, budget=1)
    first = Assignment.objects.create(annotator=work.annotators[0], dialogue=work.project.dialogues.first())
    Assignment.objects.filter(pk=first.pk).update(status="submitted", submitted_at=timezone.now() - timedelta(1))
    late = work.annotators[1]
    late.set_password(PASSWORD)
    late.save()
    login(page, live_server, late.username)
    page.goto(f"{live_server.url}/projects/spent/queue/")
    text = page.locator("main").inner_text()
    assert "Nothing is assigned to you yet" not in text
    assert "needs no more answers" in text
    # in the annotator's language too (a browser asking for Japanese, signed in as they are)
    japanese = browser.new_context(locale="ja-JP")
    try:
        japanese.add_cookies(page.context.cookies())
        other = japanese.new_page()
        other.goto(f"{live_server.url}/projects/spent/queue/")
        assert "回答はこれ以上必要ありません" in other.locator("main").inner_text()
    finally:
        japanese.close()


def test_comparisons_whose_vote_budget_is_spent_say_so_too(live_server, page, tmp_path):
    work = project_with_work("pairwise", slug="votes", annotators=2, assign=False)
    pairwise_settings_save(project=work.project, reveal_systems=False, active_pairs=True, vote_budget=1, ties="half")
    first = Assignment.objects.create(annotator=work.annotators[0], dialogue=work.project.dialogues.first(),
                                      shown_first="a")  # fmt: skip
    Assignment.objects.filter(pk=first.pk).update(status="submitted", submitted_at=timezone.now())
    key = work.project.criteria.order_by("position").first()
    Judgement.objects.create(assignment=first, criterion=key, unit=0, value="a")
    late = work.annotators[1]
    late.set_password(PASSWORD)
    late.save()
    membership_add(project=work.project, user=late, role=Role.ANNOTATOR)
    login(page, live_server, late.username)
    page.goto(f"{live_server.url}/projects/votes/queue/", timeout=120_000)  # the first comparison loads scipy
    text = page.locator("main").inner_text()
    assert "Nothing is assigned to you yet" not in text and "needs no more answers" in text
