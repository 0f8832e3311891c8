"""Playwright's ``expect``, imported when a test first asserts with it rather than while the suite is collected
(importing Playwright takes about a second, paid by every test process, browser tests or not)."""

from __future__ import annotations


def expect(actual, message: str | None = None):
    """``playwright.sync_api.expect(actual, message)``: assertions that wait until they hold (or time out)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(actual, message)
