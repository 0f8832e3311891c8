"""Every judgement type completed with the keyboard alone, with the hotkeys shown beside the choices; every
key press is counted (a 10-system-turn DBDC dialogue takes at most 25)."""

from __future__ import annotations

import json

import pytest

from annotator.models import AssignmentStatus, Reordering
from tests.browser.test_annotation import (
    COHERENCE,
    DCH1,
    NLPCC,
    STC3,
    login,
    open_item,
    setup_item,
    stored,
    wait_for_submission,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Keys:
    """The keyboard, counting every press."""

    def __init__(self, page):
        self.page = page
        self.count = 0

    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)
            self.count += 1


def focused_question(page) -> str | None:
    return page.evaluate("document.activeElement.dataset.name || document.activeElement.id || null")


DBDC_10 = [
    {
        "id": "bd10",
        "turns": [
            {
                "speaker": "U" if t % 2 == 0 else "S",
                "text": f"{'user' if t % 2 == 0 else 'system'} utterance {t // 2 + 1}",
            }
            for t in range(20)
        ],
    }
]


def test_a_ten_system_turn_breakdown_dialogue_in_at_most_25_key_presses(
    live_server, page, screenshot, tmp_path, django_user_model
):
    _p, _u, item = setup_item(tmp_path, django_user_model, "dbdc", DBDC_10)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    # given the page (a new collection: every system turn after a user turn is asked): the first system
    # turn has the focus, the keys are shown, and progress and the save status are visible from the first turn
    assert focused_question(page) == "j:breakdown:1"
    assert page.locator('input[name="j:breakdown:1"][value="T"] ~ .keycap kbd').inner_text() == "p"
    assert page.locator("#progress").inner_text().startswith("System turn 1 of 10")
    assert page.locator("#actions").is_visible() and not page.get_by_role("button", name="Submit").is_visible()
    keys = Keys(page)
    labels = "npbnnpbbnp"
    expected = {"n": "O", "p": "T", "b": "X"}
    # when each system turn gets its label by one key (the next turn appears and takes the focus)
    for turn, label in enumerate(labels):
        keys.press(label)
        if turn == 0:
            page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Draft saved')")
            assert page.locator("#progress").inner_text().startswith("System turn 2 of 10")
        if turn + 1 < len(labels):
            assert focused_question(page) == f"j:breakdown:{2 * (turn + 1) + 1}"
            assert page.locator(".post").nth(2 * (turn + 1) + 1).is_visible()
    screenshot("keyboard-dbdc")
    keys.press("Enter")  # everything is answered: submit
    wait_for_submission(page)
    # then the item is submitted with exactly these labels, in at most 25 key presses
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    assert stored(item) == {("breakdown", 2 * t + 1, expected[label]) for t, label in enumerate(labels)}
    assert keys.count <= 25
    print(f"\n10-system-turn DBDC dialogue: {keys.count} key presses")


def test_nlpcc_yes_no_questions_by_keyboard_with_the_help_overlay(
    live_server, page, screenshot, tmp_path, django_user_model
):
    project, _u, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    keys = Keys(page)
    # ? shows the list of keys, and again hides it
    keys.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    assert dialog.is_visible() and "Yes / No" in dialog.inner_text()
    screenshot("keyboard-help")
    keys.press("?")
    assert not dialog.is_visible()
    # y / n answer and move on; k goes back to change an answer, j forward again
    answers = "ynnyynnyyn"
    for letter in answers:
        keys.press(letter)
    keys.press("k", "k", "y")  # the ninth question becomes "yes"; the focus moves on to the tenth
    assert focused_question(page) == "j:continues_topic:1"
    keys.press("Enter")
    wait_for_submission(page)
    criteria = list(project.criteria.order_by("position").values_list("key", flat=True))
    given = {key: ("yes" if letter == "y" else "no") for key, letter in zip(criteria, answers)}
    given[criteria[8]] = "yes"
    assert stored(item) == {(key, 1, value) for key, value in given.items()}
    assert keys.count == 16


def test_stc3_ratings_and_turn_nuggets_by_keyboard(live_server, page, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "stc3", STC3, fmt="stc3")
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    # the nugget lists show their keys (speaker-specific choices, in the order shown)
    hints = page.locator("#k-nugget-1").inner_text().split()
    assert [w.lower() for w in hints] == ["key", "1", "hnug", "key", "2", "hnug*", "key", "3", "hnan"]
    keys = Keys(page)
    keys.press("1", "2", "3")  # turn 1 CNUG0, turn 2 HNUG*, turn 3 CNUG*
    keys.press("5", "4", "3")  # A = 2, S = 1, E = 0 (the 5th, 4th and 3rd values shown)
    keys.press("Enter")
    wait_for_submission(page)
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
    assert keys.count == 7


def test_dch1_post_nuggets_and_dialogue_ratings_by_keyboard(live_server, page, tmp_path, django_user_model):
    _p, _u, item = setup_item(tmp_path, django_user_model, "dch1", DCH1)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    keys = Keys(page)
    # Enter on an incomplete item goes to the first unanswered question instead of submitting
    keys.press("j", "j", "Enter")
    assert focused_question(page) == "j:nugget:0"
    keys.press("1", "1", "2", "4")  # posts: CNUG0, CNUG0, HNUG*, NaN (customer: 4th value)
    assert page.locator(".nugget-badge").all_inner_texts() == ["Nugget 1: CNUG0", "Nugget 2: HNUG*"]
    # arrow keys move between questions too (from the question, not from inside a choice)
    keys.press("ArrowDown", "ArrowUp")
    assert focused_question(page) == "j:TS:0"
    keys.press("3", "2", "1", "3", "1")  # TS 1, TA 0, CS -2, HA 1, CA -1
    keys.press("Enter")
    wait_for_submission(page)
    assert stored(item) == {
        ("nugget", 0, "CNUG0"),
        ("nugget", 1, "CNUG0"),
        ("nugget", 2, "HNUG*"),
        ("nugget", 3, "NaN"),
        ("TS", 0, "1"),
        ("TA", 0, "0"),
        ("CS", 0, "-2"),
        ("HA", 0, "1"),
        ("CA", 0, "-1"),
    }


def test_coherence_turn_by_turn_overall_and_reordering_by_keyboard(
    live_server, page, screenshot, tmp_path, django_user_model
):
    _p, _u, item = setup_item(tmp_path, django_user_model, "coherence", COHERENCE)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    shown = item.shown_order
    keys = Keys(page)
    assert page.locator("#progress").inner_text().startswith("Turn 1 of 6")
    # each turn rated with a number key; the next turn appears and takes the focus
    for position in range(len(shown)):
        assert focused_question(page) == f"j:turn_coherence:{position}"  # numbered as shown
        keys.press(str(1 + position % 5))
    # then the rating of the whole dialogue, after which the focus is in the reordering list
    assert focused_question(page) == "j:overall:0"
    keys.press("6")
    assert page.evaluate("document.activeElement.closest('#reorder-list') !== null")
    # swap the first and third turns: pick the third, move it up twice, pick the old first, move it down
    keys.press("ArrowDown", "ArrowDown", "Shift+ArrowUp", "Shift+ArrowUp", "ArrowDown", "Shift+ArrowDown")
    # the list names turns by their shown place (the source order is the answer key, kept on the server)
    expected_shown = [2, 1, 0] + list(range(3, len(shown)))
    order = [int(t) for t in page.locator("#reorder-list li").evaluate_all("els => els.map(e => e.dataset.turn)")]
    assert order == expected_shown
    expected_order = [shown[k] for k in expected_shown]
    assert (
        "valid" in page.locator("#reorder-status").inner_text()
        or "Moved" in page.locator("#reorder-status").inner_text()
    )
    screenshot("keyboard-coherence")
    keys.press("Enter")
    wait_for_submission(page)
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED
    assert stored(item) == {("turn_coherence", t, str(1 + p % 5)) for p, t in enumerate(shown)} | {("overall", 0, "6")}
    assert Reordering.objects.get(assignment=item).submitted_order == expected_order
    assert keys.count == 14


def test_hotkeys_never_fire_in_a_text_field_and_read_only_items_ignore_them(
    live_server, page, tmp_path, django_user_model
):
    _p, _u, item = setup_item(tmp_path, django_user_model, "nlpcc", NLPCC)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    # a text field on the page (the sign-in form is one): typing y, n and digits there chooses nothing
    page.evaluate("document.getElementById('signin-panel').hidden = false")
    page.get_by_label("Username").click()
    page.keyboard.type("yn1?j")
    assert page.locator("input[type=radio]:checked").count() == 0
    assert not page.get_by_role("dialog", name="Keyboard shortcuts").is_visible()
    assert json.loads(page.evaluate("JSON.stringify(document.getElementById('signin-username').value)")) == "annyn1?j"


@pytest.mark.shared_data
def test_a_real_dbdc3_dialogue_by_keyboard_in_at_most_25_key_presses(live_server, page, dbdc_dir, django_user_model):
    from annotator.handout.services.bulk import assignments_create_balanced
    from annotator.models import Assignment
    from annotator.services.imports import dialogues_import
    from annotator.services.projects import membership_add, project_create
    from tests.browser.test_annotation import PASSWORD

    # given one dialogue of the DBDC3 English evaluation set, assigned to a new annotator
    project = project_create(slug="dbdc3-real", preset="dbdc", annotators_per_dialogue=1)
    dialogues_import(project=project, paths=[sorted((dbdc_dir / "eval").rglob("*.log.json"))[0]])
    user = django_user_model.objects.create_user(username="ann", password=PASSWORD)
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project)
    item = Assignment.objects.get(annotator=user)
    login(page, live_server, "ann")
    open_item(page, live_server, item)
    n_turns = page.locator("[data-question]").count()
    assert 10 <= n_turns <= 12
    # when every system turn gets "n", "p" or "b" and Enter submits
    keys = Keys(page)
    labels = ("npb" * n_turns)[:n_turns]
    for label in labels:
        keys.press(label)
    keys.press("Enter")
    wait_for_submission(page)
    # then the item is submitted with one label per system turn, within 25 key presses
    item.refresh_from_db()
    assert item.status == AssignmentStatus.SUBMITTED and len(stored(item)) == n_turns
    assert sorted(v for _k, _u, v in stored(item)) == sorted({"n": "O", "p": "T", "b": "X"}[x] for x in labels)
    assert keys.count == n_turns + 1 <= 25
