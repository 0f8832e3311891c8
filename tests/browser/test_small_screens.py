"""At 390 px wide (a phone), no annotator page, the home page or the lead's pages scroll sideways."""

from __future__ import annotations

import json

import pytest

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, Project
from annotator.services.demo import DEMO_ANNOTATORS, DEMO_LEAD, demo_load
from annotator.services.imports import dialogues_import
from annotator.services.judgements import Given, judgements_save
from annotator.services.projects import membership_add, project_create
from tests.browser.conftest import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
# the outermost elements reaching past the screen's right edge (inside a scrolling box is fine)
WIDE = """() => {
  const inScroller = (el) => { for (let p = el.parentElement; p; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; }
    return false; };
  const width = document.documentElement.clientWidth;
  return [...document.body.querySelectorAll('*')]
    .filter((el) => el.getBoundingClientRect().right > width + 1 && !inScroller(el))
    .filter((el) => !(el.parentElement && el.parentElement.getBoundingClientRect().right > width + 1))
    .slice(0, 5).map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : ''));
}"""
LONG = [
    {
        "id": "long-words",
        "turns": [
            {
                "speaker": "customer",
                "text": "My order https://shop.example.com/orders/2024/0000123456789/items?tracking=ABCDEFGHIJ failed",
            },
            {"speaker": "helpdesk", "text": "Please send the reference " + "X" * 60 + " to us."},
        ],
    }
]


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, has_touch=True)
    page = context.new_page()
    yield page
    context.close()


def sign_in(page, url, username, password):
    page.goto(f"{url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}/")


def check(page, name, overflows):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"390px-{name}.png"), full_page=True)
    overflow = page.evaluate(OVERFLOW)
    if overflow > 0:
        overflows.append(f"{name}: {overflow}px wider than the screen ({', '.join(page.evaluate(WIDE))})")


def test_no_page_is_wider_than_a_390px_phone(live_server, phone, tmp_path):
    # given the demo projects, plus a dialogue with long unbroken words
    demo_load()
    annotator, password = DEMO_ANNOTATORS[0]
    long_project = project_create(slug="long", preset="dch1", annotators_per_dialogue=1)
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in LONG))
    dialogues_import(project=long_project, paths=[path])
    user = Project.objects.get(slug="demo-dch1").members.get(username=annotator)
    membership_add(project=long_project, user=user, role="annotator")
    assignments_create_balanced(project=long_project)
    overflows: list[str] = []
    page = phone
    page.goto(f"{live_server.url}/accounts/login/")
    check(page, "login", overflows)
    sign_in(page, live_server.url, annotator, password)
    check(page, "home", overflows)
    # when every annotator page is opened: queues, an item of every kind, a submitted item
    for project in Project.objects.order_by("slug"):
        page.goto(f"{live_server.url}/projects/{project.slug}/queue/")
        check(page, f"queue-{project.slug}", overflows)
        item = Assignment.objects.filter(dialogue__project=project, annotator=user).order_by("queue_rank").first()
        page.goto(f"{live_server.url}/items/{item.pk}/")
        if project.preset == "coherence":  # reveal every turn, the overall rating and the reordering
            for _turn in item.shown_order:
                page.keyboard.press("3")
            page.keyboard.press("4")
            assert page.locator("#reorder-list").is_visible()
        check(page, f"item-{project.slug}", overflows)
        page.keyboard.press("?")
        check(page, f"help-{project.slug}", overflows)
        page.keyboard.press("Escape")
    nlpcc = Assignment.objects.filter(dialogue__project__slug="demo-nlpcc", annotator=user).order_by("pk").last()
    criteria = nlpcc.dialogue.project.criteria.values_list("key", flat=True)
    units = nlpcc.dialogue.posts.filter(speaker="system").values_list("position", flat=True)
    judgements_save(
        assignment_id=nlpcc.pk, user=user, values=[Given(k, u, "yes") for k in criteria for u in units], submit=True
    )
    page.goto(f"{live_server.url}/items/{nlpcc.pk}/")
    check(page, "item-submitted", overflows)
    # the signed-out panel and a refused submission
    page.goto(f"{live_server.url}/items/{item.pk}/")
    page.evaluate("document.getElementById('signin-panel').hidden = false")
    check(page, "item-signed-out", overflows)
    # and the lead's pages
    page.context.clear_cookies()
    sign_in(page, live_server.url, *DEMO_LEAD)
    check(page, "home-lead", overflows)
    for suffix in ("manage/", "dashboard/", "runs/"):
        page.goto(f"{live_server.url}/projects/demo-stc3/{suffix}")
        check(page, f"lead-{suffix.strip('/')}", overflows)
    # then nothing is wider than the screen
    assert overflows == []
