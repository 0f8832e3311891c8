"""The pages in Japanese and Simplified Chinese, in Chromium at 1280 px and 390 px: the queue, an annotation
page of every preset and the dashboard. Nothing scrolls sideways, long CJK text without spaces wraps inside
its box, <html lang> follows the language (so that the right CJK glyphs are chosen), and the scripts' own
messages come from the translated catalogue. Screenshots: test-artifacts/screenshots/i18n-*.png."""

from __future__ import annotations

import json

import pytest

from annotator.handout.services.bulk import assignments_create_balanced
from annotator.models import Assignment, Project
from annotator.services.demo import DEMO_ANNOTATORS, DEMO_LEAD, demo_load
from annotator.services.imports import dialogues_import
from annotator.services.projects import membership_add, project_create
from evaluation.services.statistics import statistics_recompute
from tests.browser.conftest import SCREENSHOTS, live_figures_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = {
    # browser locale, <html lang>, words the pages must show
    "ja": ("ja-JP", "ja", {"queue": "あなたのキュー", "item": "ガイドライン", "dashboard": "基準ごとの一致度"}),
    "zh-hans": ("zh-CN", "zh-hans", {"queue": "你的队列", "item": "标注指南", "dashboard": "各标准的一致性"}),
}
WIDTHS = (1280, 390)
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"
# the innermost elements reaching past the window's right edge, to say what overflows
WIDEST = """() => Array.from(document.querySelectorAll('body *'))
  .filter(el => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.scroll, .table-wrap'))
  .filter(el => !Array.from(el.children).some(c => c.getBoundingClientRect().right > window.innerWidth + 1))
  .slice(0, 5)
  .map(el => el.tagName + (el.id ? '#' + el.id : '') + '.' + el.className + ' ' + el.textContent.slice(0, 30))"""
# a customer's complaint with no space in it, and a long product code, as Weibo and helpdesk posts have
CJK_TEXT = (
    "我在你们的网上商城买的笔记本电脑到现在已经过了两个星期还没有收到快递单号也查不到物流信息客服电话一直占线"
    "请问到底什么时候能发货如果不能发货请直接帮我退款谢谢订单号是ＡＢＣ２０２４１２３４５６７８９０１２３４５"
)
CJK_DIALOGUE = {
    "id": "cjk-long",
    "language": "zh",
    "turns": [
        {"speaker": "customer", "text": CJK_TEXT},
        {"speaker": "helpdesk", "text": "您好，非常抱歉给您带来不便。" + "我们已经为您加急处理" * 12 + "。"},
    ],
}


@pytest.fixture
def languages_setup(tmp_path):
    demo_load()
    annotator, _password = DEMO_ANNOTATORS[0]
    user = Project.objects.get(slug="demo-dch1").members.get(username=annotator)
    cjk = project_create(slug="cjk", preset="dch1", annotators_per_dialogue=1)
    path = tmp_path / "cjk.jsonl"
    path.write_text(json.dumps(CJK_DIALOGUE, ensure_ascii=False) + "\n", encoding="utf-8")
    dialogues_import(project=cjk, paths=[path])
    membership_add(project=cjk, user=user, role="annotator")
    assignments_create_balanced(project=cjk)
    statistics_recompute(project_id=Project.objects.get(slug="demo-stc3").pk)
    return user


def sign_in(page, url, username, password):
    page.goto(f"{url}/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(password)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"{url}/")


def csp_watch(page, violations: list[str]):
    def note(message) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{page.url}: {message.text[:80]}")

    return note


def shoot(page, name, problems):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    overflow = page.evaluate(OVERFLOW)
    if overflow > 0:
        culprits = page.evaluate(WIDEST)
        problems.append(f"{name}: {overflow}px wider than the window ({culprits})")


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_pages_in_japanese_and_chinese_fit_and_wrap(live_server, browser, languages_setup, language):
    locale, html_lang, words = LANGUAGES[language]
    annotator, password = DEMO_ANNOTATORS[0]
    problems: list[str] = []
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, locale=locale)
        page = context.new_page()
        violations: list[str] = []
        page.on("console", csp_watch(page, violations))
        prefix = f"i18n-{language}-{width}px"
        # the browser's language decides: the login page is already in the reader's language
        sign_in(page, live_server.url, annotator, password)
        assert page.evaluate("document.documentElement.lang") == html_lang
        page.goto(f"{live_server.url}/projects/demo-dch1/queue/")
        assert words["queue"] in page.locator("h1").inner_text()
        shoot(page, f"{prefix}-queue", problems)
        for project in Project.objects.filter(slug__startswith="demo-").order_by("slug"):
            mine = Assignment.objects.filter(dialogue__project=project, annotator=languages_setup)
            item = mine.order_by("queue_rank")[0]
            page.goto(f"{live_server.url}/items/{item.pk}/")
            assert words["item"] in page.locator("details.guidelines summary").inner_text()
            # the script's progress line comes from the translated catalogue (Intl numbers in the page's language)
            page.wait_for_function("() => document.getElementById('progress').textContent.length > 0")
            assert "answered" not in page.locator("#progress").inner_text()
            shoot(page, f"{prefix}-annotate-{project.preset}", problems)
        # long CJK text without spaces wraps inside its post, at every width
        item = Assignment.objects.get(dialogue__project__slug="cjk", annotator=languages_setup)
        page.goto(f"{live_server.url}/items/{item.pk}/")
        boxes = page.evaluate(
            """() => Array.from(document.querySelectorAll('.post-text')).map(el => {
                 const r = el.getBoundingClientRect();
                 const line = parseFloat(getComputedStyle(el).lineHeight) || 24;
                 return {right: r.right, width: r.width, height: r.height, line: line,
                         scroll: el.scrollWidth, client: el.clientWidth};
               })"""
        )
        window = page.evaluate("window.innerWidth")
        # the Chinese dialogue is marked as Chinese inside a Japanese page, so its glyphs are the Chinese ones
        assert page.locator(".post-text").first.get_attribute("lang") == "zh"
        for box in boxes:
            assert box["scroll"] <= box["client"] + 1, box  # nothing hidden or sticking out of the box
            assert box["right"] <= window, box
            assert box["height"] >= 2 * box["line"] - 1, box  # it wrapped onto several lines
        shoot(page, f"{prefix}-annotate-cjk-long", problems)
        # the lead's dashboard
        page.context.clear_cookies()
        sign_in(page, live_server.url, *DEMO_LEAD)
        # the live figures settled first: a dashboard whose figures are being rebuilt reloads itself when they are
        live_figures_settled(page, live_server.url, "demo-stc3")
        page.goto(f"{live_server.url}/projects/demo-stc3/dashboard/")
        assert words["dashboard"] in page.locator("#agreement-heading").inner_text()
        page.wait_for_function("() => window.Chart && Chart.getChart(document.getElementById('agreement-chart'))")
        shoot(page, f"{prefix}-dashboard", problems)
        page.goto("about:blank")
        context.close()
        assert violations == [], violations
    assert problems == []


def test_the_picker_changes_the_language_and_it_stays(live_server, page, languages_setup):
    annotator, password = DEMO_ANNOTATORS[0]
    sign_in(page, live_server.url, annotator, password)
    page.goto(f"{live_server.url}/projects/demo-dbdc/queue/")
    assert page.evaluate("document.documentElement.lang") == "en"
    # choosing a language in the picker submits it (language.js) and comes back to the same page
    with page.expect_navigation():
        page.locator("#language-choice").select_option("ja")
    assert page.url.endswith("/projects/demo-dbdc/queue/")
    assert page.evaluate("document.documentElement.lang") == "ja"
    assert "あなたのキュー" in page.locator("h1").inner_text()
    # the choice stays on the next pages, and the picker shows it
    page.goto(f"{live_server.url}/")
    assert page.evaluate("document.documentElement.lang") == "ja"
    assert page.locator("#language-choice").input_value() == "ja"
    assert page.locator(".language-picker button").is_hidden()  # the script submits on change
