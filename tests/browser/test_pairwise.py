"""The pairwise preset in Chromium: an annotator judges comparisons with the keys alone (also at 390 px), the
names of the systems nowhere in the page, and the lead's dashboard shows the Bradley-Terry leaderboard."""

from __future__ import annotations

import pytest

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, AssignmentStatus, Judgement
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create
from evaluation.services.statistics import statistics_recompute
from tests.browser.test_annotation import PASSWORD, login, open_item, wait_for_submission
from tests.factories import user_make
from tests.pairwise.data import SYSTEMS, pairwise_items, write_lines

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def comparisons(tmp_path, *, votes: int = 0, items: int = 3):
    project = project_create(slug="pw-b", preset="pairwise", annotators_per_dialogue=1)
    dialogues_import(project=project, paths=[write_lines(tmp_path / "pw.jsonl", pairwise_items(items, votes=votes))])
    user = user_make("pw-ann", PASSWORD)
    membership_add(project=project, user=user, role="annotator")
    assignments_create_balanced(project=project, seed=0)
    return project, user


@pytest.mark.parametrize("width", [1200, 390])
def test_an_annotator_judges_comparisons_with_the_keys(live_server, page, screenshot, tmp_path, width):
    _project, user = comparisons(tmp_path)
    page.set_viewport_size({"width": width, "height": 844 if width == 390 else 800})
    login(page, live_server, "pw-ann")
    items = list(Assignment.objects.filter(annotator=user).order_by("queue_rank"))
    open_item(page, live_server, items[0])
    html = page.content()
    for system in SYSTEMS:  # the candidates' texts start with their system's name: look outside them
        assert f'"{system}' not in html and f">{system}<" not in html and f"({system})" not in html
    cards = page.locator(".candidate")
    assert cards.count() == 2
    if width == 390:  # stacked, each the page's width, nothing wider than the screen
        first, second = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
        assert second["y"] >= first["y"] + first["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(f"pairwise-annotator-{width}")
    # key 1: Response 1 (the one shown first) is better; Enter submits
    page.locator("[data-question]").first.focus()
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    wait_for_submission(page)
    first_item = Assignment.objects.get(pk=items[0].pk)
    assert first_item.status == AssignmentStatus.SUBMITTED
    saved = Judgement.objects.get(assignment=first_item)
    assert saved.value == first_item.shown_first == saved.shown_first  # stored in system terms, with the order
    # the next item: key 4 is "both bad"
    page.wait_for_url(f"{live_server.url}/items/{items[1].pk}/")
    page.locator("[data-question]").first.focus()
    page.keyboard.press("4")
    page.keyboard.press("Enter")
    wait_for_submission(page)
    assert Judgement.objects.get(assignment=items[1]).value == "both_bad"


def test_the_leads_dashboard_shows_the_leaderboard_with_intervals(live_server, page, screenshot, tmp_path):
    project, _user = comparisons(tmp_path, votes=5, items=36)
    lead = user_make("pw-lead", PASSWORD)
    membership_add(project=project, user=lead, role="lead")
    statistics_recompute(project_id=project.pk, force=True)
    login(page, live_server, "pw-lead")
    page.goto(f"{live_server.url}/projects/pw-b/dashboard/")
    board = page.locator("#bt-leaderboard-overall")
    board.wait_for()
    systems = board.locator("tbody th[scope=row]").all_inner_texts()
    assert sorted(systems) == sorted(SYSTEMS) and systems[-1] == "delta"
    assert board.locator("svg line.ci").count() == 4 and board.locator("svg circle").count() == 4
    assert page.locator("#bt-style-overall tbody tr").count() == 4
    assert page.locator("#bt-matrix-overall tbody td").count() == 16
    assert "Position bias" in page.locator("#bt-position-bias").inner_text()
    assert "Fleiss" in page.locator("#bt-agreement").inner_text()
    assert page.locator("#bt-collection").get_attribute("data-state") in ("collecting", "separated")
    page.locator("#bt-overall").scroll_into_view_if_needed()
    folder = screenshot("pairwise-dashboard").parent
    page.locator("#bt-overall").screenshot(path=str(folder / "pairwise-leaderboard.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot("pairwise-dashboard-390")
