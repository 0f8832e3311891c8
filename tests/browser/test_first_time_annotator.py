"""The annotation page explains itself to a first-time annotator (issue 33): key caps that cannot be read as
values, every label explained under the guidelines, a shuffled order confirmed before it counts, the system on
one side in every breakdown item, no key hints on touch screens, a short status bar."""

from __future__ import annotations

import json

import pytest

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Reordering
from annotator.services.imports import dialogues_import
from tests.browser.assertions import expect
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_annotation import (
    COHERENCE,
    DBDC,
    PASSWORD,
    login,
    open_item,
    radio,
    setup_item,
    wait_for_submission,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DCH1 = [
    {
        "id": "d1",
        "turns": [
            {"speaker": "customer", "text": "My SIM shows no service."},
            {"speaker": "helpdesk", "text": "We activated it now."},
            {"speaker": "customer", "text": "It works, thanks!"},
        ],
    }
]
NLPCC = [{"id": "n1", "turns": [{"speaker": "user", "text": "Hello?"}, {"speaker": "system", "text": "Hi there!"}]}]


def test_key_caps_are_set_apart_from_numeric_values_for_eyes_and_screen_readers(
    live_server, page, tmp_path, django_user_model
):
    _p, _u, item = setup_item(tmp_path, django_user_model, "dch1", DCH1)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    choice = page.locator("label.choice").filter(has=page.locator('input[name="j:TS:0"][value="-1"]'))
    # the value comes first, then a key cap that says it is a key: "-1: no" and "key 1" cannot run together
    assert choice.locator(".choice-label").inner_text() == "-1: no"
    assert " ".join(choice.locator(".keycap").inner_text().split()).lower() == "key 1"
    # screen readers hear the key as a key, after the value
    expect(page.get_by_role("radio", name="-1: no key 1").first).to_be_visible()
    box_value = choice.locator(".choice-label").bounding_box()
    box_key = choice.locator(".keycap kbd").bounding_box()
    assert box_key["x"] > box_value["x"] + box_value["width"]  # the key cap stands after the value
    page.locator(".dialogue-questions").screenshot(path=str(SCREENSHOTS / "annotate-key-caps.png"))


def test_the_guidelines_explain_every_nugget_type_on_the_page(live_server, page, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "dch1", DCH1)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    glossary = page.locator(".label-glossary")
    text = glossary.inner_text()
    for label, meaning in [
        ("CNUG0: trigger nugget", "initial problem"),
        ("CNUG: regular nugget", "useful to the helpdesk"),
        ("CNUG*: goal nugget (problem solved)", "has been solved"),
        ("HNUG: regular nugget", "useful to the customer"),
        ("HNUG*: goal nugget (a solution)", "a solution to the problem"),
        ("NaN: not a nugget", "does not help"),
    ]:
        line = next(line for line in text.splitlines() if line.startswith(label))
        assert meaning in line, line
    # every criterion the page asks about is named there
    for criterion in ("Task statement", "Customer satisfaction", "Nugget type"):
        assert criterion in text


def test_nlpcc_guidelines_explain_the_aspects_and_that_n_is_no(live_server, page, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    glossary = page.locator(".label-glossary")
    affecting = glossary.locator("dt", has_text="Affecting")
    expect(affecting).to_be_visible()
    meaning = affecting.locator("xpath=following-sibling::dd[1]").inner_text()
    assert "happy or sad" in meaning and "Emotional expression" in meaning
    letters = " ".join(glossary.locator(".glossary-letters").inner_text().split()).lower()
    assert "key n = no" in letters and "key y = yes" in letters


def test_breakdown_guidelines_say_n_is_nb_and_the_system_keeps_its_side(live_server, page, tmp_path, django_user_model):
    user_first = {"id": "b2", "turns": [{"speaker": "U", "text": "hi"}] + DBDC[0]["turns"]}
    project, user, _item = setup_item(tmp_path, django_user_model, "dbdc", DBDC)
    path = tmp_path / "second.jsonl"
    path.write_text(json.dumps(user_first) + "\n")
    dialogues_import(project=project, paths=[path], fmt="jsonl")
    assignments_create_balanced(project=project)
    login(page, live_server, "ann")
    sides = {}
    for item in Assignment.objects.filter(annotator=user, dialogue__project=project):
        open_item(page, live_server, item)
        letters = " ".join(page.locator(".glossary-letters").inner_text().split()).lower()
        assert "key n = nb" in letters
        assert "not a breakdown" in page.locator(".label-glossary").inner_text().lower()
        blocks = page.locator("article.block")
        sides[item.dialogue.external_id] = {
            blocks.nth(i).locator(".speaker").first.inner_text().split()[-1]: blocks.nth(i).get_attribute("class")
            for i in range(2)
        }
    # whether the dialogue starts with the system or the user, the system's turns are on the same side
    assert "speaker-second" in sides["b1"]["S"] and "speaker-second" in sides["b2"]["S"]
    assert "speaker-first" in sides["b1"]["U"] and "speaker-first" in sides["b2"]["U"]


def _coherence_item_shown_in_order(tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "coherence", COHERENCE)
    Assignment.objects.filter(pk=item.pk).update(shown_order=list(range(6)))  # the shuffle happens to be valid
    item.refresh_from_db()
    return item


def _rate_everything(page):
    for turn in range(6):
        radio(page, "turn_coherence", turn, "4")
    radio(page, "overall", 0, "5")


def test_an_untouched_valid_order_counts_only_once_confirmed_and_is_recorded_as_kept(
    live_server, page, screenshot, tmp_path, django_user_model
):
    item = _coherence_item_shown_in_order(tmp_path, django_user_model)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    _rate_everything(page)
    submit = page.get_by_role("button", name="Submit")
    confirm = page.get_by_label("The order shown is my answer: it reads most coherently as it is.")
    # every rating is given, but the order shown is not an answer until the annotator says so
    expect(confirm).to_be_visible()
    expect(submit).to_be_disabled()
    expect(page.locator("#progress")).to_contain_text("7 of 8 answered")
    assert "tick" in page.locator("#reorder-status").inner_text()
    screenshot("annotate-coherence-confirm-order")
    confirm.check()
    expect(page.locator("#progress")).to_contain_text("8 of 8 answered")
    expect(submit).to_be_enabled()
    submit.click()
    wait_for_submission(page)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    reordering = Reordering.objects.get(assignment=item)
    assert reordering.submitted_order == list(range(6)) and reordering.kept_shown_order


def test_a_moved_order_is_no_kept_order_and_an_invalid_one_is_never_all_answered(
    live_server, page, tmp_path, django_user_model
):
    item = _coherence_item_shown_in_order(tmp_path, django_user_model)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    _rate_everything(page)
    turns = page.locator("#reorder-list li")
    turns.nth(0).get_by_role("button", name="Move down").click()  # B first: invalid
    expect(page.locator("#progress")).to_contain_text("7 of 8 answered")
    assert "7 of 7" not in page.locator("#progress").inner_text()
    # the sticky bar stays one short line; why the order is wrong is said beside the list
    status = page.locator("#save-status")
    expect(status).to_contain_text("not valid yet")
    assert "speakers must alternate" not in status.inner_text()
    bar = page.locator("#actions").bounding_box()
    assert bar["height"] < 90, bar
    # a valid order other than the one shown needs no confirmation: A2 B1 A0 B3 A4 B5
    turns.nth(1).get_by_role("button", name="Move down").click()
    turns.nth(0).get_by_role("button", name="Move down").click()
    assert [int(t) for t in turns.evaluate_all("els => els.map(e => e.dataset.turn)")] == [2, 1, 0, 3, 4, 5]
    expect(page.locator("#reorder-confirm-row")).to_be_hidden()
    expect(page.locator("#progress")).to_contain_text("8 of 8 answered")
    page.get_by_role("button", name="Submit").click()
    wait_for_submission(page)
    assert Assignment.objects.get(pk=item.pk).status == AssignmentStatus.SUBMITTED
    reordering = Reordering.objects.get(assignment=item)
    assert reordering.submitted_order == [2, 1, 0, 3, 4, 5] and not reordering.kept_shown_order


def test_touch_screens_show_no_key_hints_and_no_keys_button(live_server, browser, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "dch1", DCH1)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone = context.new_page()
    try:
        login(phone, live_server, "ann")
        open_item(phone, live_server, item)
        assert phone.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
        expect(phone.locator(".keycap").first).to_be_hidden()
        expect(phone.locator(".key-hints").first).to_be_hidden()
        expect(phone.locator("#help-button")).to_be_hidden()
        expect(phone.get_by_role("radio", name="-1: no", exact=False).first).to_be_visible()
        phone.screenshot(path=str(SCREENSHOTS / "390px-annotate-touch.png"), full_page=True)
    finally:
        phone.goto("about:blank")
        context.close()


def test_screenshots_of_the_annotation_page_at_1280_and_390_px(live_server, browser, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "dch1", DCH1)
    for width, name in ((1280, "annotate-clarity-1280px"), (390, "390px-annotate-clarity")):
        context = browser.new_context(viewport={"width": width, "height": 900})
        view = context.new_page()
        try:
            view.goto(f"{live_server.url}/accounts/login/")
            view.get_by_label("Username").fill("ann")
            view.get_by_label("Password").fill(PASSWORD)
            view.get_by_role("button", name="Log in").click()
            open_item(view, live_server, item)
            # nothing wider than the screen
            assert view.evaluate("document.documentElement.scrollWidth") <= width
            view.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
        finally:
            view.goto("about:blank")
            context.close()
