"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright for Python."""

import os
import time
from pathlib import Path

import pytest

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():
    """One browser per test module: Playwright's event loop must not outlive the browser tests."""
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (scripts/run_tests.py installs it)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread while the browser lives; the tests'
    # ORM calls (and the database teardown) are still synchronous. Unset again with the browser.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            yield browser
            browser.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture
def page(browser):
    """A page of a fresh context; any Content-Security-Policy violation it reports fails the test."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    page = context.new_page()
    violations: list[str] = []

    def note_violation(message) -> None:
        if "Content Security Policy" in message.text:
            violations.append(message.text)

    page.on("console", note_violation)
    yield page
    # Leave every page first: the annotation page flushes unsaved answers on pagehide (fetch keepalive),
    # and that last request must reach the live server before the test database is flushed.
    for open_page in context.pages:
        try:
            open_page.goto("about:blank")
        except Exception:  # a page already closed or crashed has nothing left to send
            continue
    time.sleep(0.5)
    context.close()
    assert violations == [], f"the page broke its Content-Security-Policy: {violations}"


@pytest.fixture
def screenshot(page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
