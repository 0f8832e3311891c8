"""Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright for Python."""

import os
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.waiting import requests_in_flight, wait_for

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


# Once a test has ended, its pages send nothing more as they are left or closed: the annotation page saves what is
# unsaved on pagehide (fetch keepalive, which outlives the page and its context) and on visibilitychange, and such a
# request could reach a live server after the test database was flushed (registered before the pages' own scripts,
# so that these listeners run first; a test that leaves a page itself is not affected).
QUIET_AFTER_THE_TEST = """
for (const [target, type] of [[window, "pagehide"], [window, "beforeunload"], [window, "unload"],
                              [document, "visibilitychange"]]) {
  target.addEventListener(type, (event) => { if (window.__testEnded) event.stopImmediatePropagation(); },
                          {capture: true});
}
"""


class Serving:
    """How many requests this process's live servers (pytest-django's ``live_server``, a thread of the test
    process) have begun and not yet finished (Django's request signals)."""

    def __init__(self) -> None:
        from django.core.signals import request_finished, request_started

        self.count = 0
        self._lock = threading.Lock()
        self._signals = ((request_started, self._began), (request_finished, self._ended))
        for signal, receiver in self._signals:
            signal.connect(receiver, weak=False)

    def _began(self, **_signal) -> None:
        with self._lock:
            self.count += 1

    def _ended(self, **_signal) -> None:
        with self._lock:
            self.count -= 1

    def disconnect(self) -> None:
        for signal, receiver in self._signals:
            signal.disconnect(receiver)


class RequestsInFlight:
    """The requests a browser context has sent and not yet seen answered (or failed), the loopback ports they
    went to, and the requests this process's live servers have begun and not yet finished (``Serving``)."""

    def __init__(self, context) -> None:
        self.sent: set = set()
        self.ports: set[int] = set()
        self.serving = Serving()
        context.on("request", self._sent)
        context.on("requestfinished", self._settled)
        context.on("requestfailed", self._settled)

    def _sent(self, request) -> None:
        self.sent.add(request)
        url = urlsplit(request.url)
        if url.scheme in ("http", "https") and url.hostname in ("127.0.0.1", "localhost") and url.port:
            self.ports.add(url.port)

    def _settled(self, request) -> None:
        self.sent.discard(request)

    def answered(self, context, timeout: float) -> bool:
        """Whether every request sent was answered within ``timeout`` seconds (Playwright's events arrive while
        one of its calls waits: a page of the context waits in short steps)."""
        deadline = time.monotonic() + timeout
        while self.sent and time.monotonic() < deadline and context.pages:
            context.pages[0].wait_for_timeout(20)
        return not self.sent or not context.pages  # a page closed has given up its requests

    def disconnect(self) -> None:
        self.serving.disconnect()


@pytest.fixture
def live_server(live_server):
    """pytest-django's live server; the test database is flushed only once it has finished every request that
    reached it, from any browser context (one a test opened and closed itself included: the annotation page saves
    what is unsaved on pagehide with ``fetch(..., {keepalive: true})``, which outlives its page and context).
    Without this, such a save could be under way in the server's thread while the flush truncates its tables."""
    serving = Serving()
    try:
        yield live_server
        port = urlsplit(live_server.url).port
        served = wait_for(lambda: serving.count <= 0 and not requests_in_flight({port}), timeout=30, every=0.02)
    finally:
        serving.disconnect()
    assert served, f"the live server on port {port} was still answering requests 30 s after the test"


@pytest.fixture
def page(browser):
    """A page of a fresh context; any Content-Security-Policy violation it reports fails the test.

    At the end the context is closed once every request its pages sent has been answered, and the test goes on
    to its teardown (the database flush) once the live servers have finished every request that reached them:
    conditions, not a fixed wait (see ``tests.waiting.requests_in_flight``)."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    context.add_init_script(QUIET_AFTER_THE_TEST)
    flight = RequestsInFlight(context)
    page = context.new_page()
    violations: list[str] = []

    def note_violation(message) -> None:
        if "Content Security Policy" in message.text:
            violations.append(message.text)

    page.on("console", note_violation)
    yield page
    for open_page in context.pages:
        try:
            open_page.evaluate("() => { window.__testEnded = true; }")
        except Exception:  # a page closed, crashed or in the middle of a navigation sends nothing more either
            continue
    try:
        answered = flight.answered(context, timeout=30)
        context.close()
        served = wait_for(
            lambda: flight.serving.count <= 0 and not requests_in_flight(flight.ports), timeout=30, every=0.02
        )
    finally:
        flight.disconnect()
    assert answered, f"requests still unanswered 30 s after the test: {[r.url for r in flight.sent]}"
    assert served, f"the live servers on {flight.ports} were still answering the pages' requests after 30 s"
    assert violations == [], f"the page broke its Content-Security-Policy: {violations}"


@pytest.fixture
def screenshot(page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


def live_figures_settled(page, base_url: str, slug: str, timeout: float = 180) -> None:
    """Wait (as the page's lead) until the project's live figures are up to date: a dashboard opened while they
    are being rebuilt reloads itself once they are (static/js/live_status.js), which would cut a test's steps.
    A test whose tasks stay in the outbox (no worker) has the rebuild its changes asked for done here, as the
    worker would (``live_state_rebuild`` is safe to run twice: fresh figures, or a rebuild at work, are left)."""
    from annotator.models import Project
    from evaluation.services.live_rebuild import live_state_rebuild

    status = f"{base_url}/projects/{slug}/dashboard/live-status/"
    if page.request.get(status).json()["stale"]:
        live_state_rebuild(project_id=Project.objects.get(slug=slug).pk)
    assert wait_for(lambda: not page.request.get(status).json()["stale"], timeout), f"{slug}: live figures stale"
