"""Shared test set-up: every page a browser test opens fails the test on any page error.

Playwright's ``Browser.new_page`` and ``BrowserContext.new_page`` are wrapped for the length of
each test: each page they make reports its uncaught exceptions (``pageerror``) and the console's
errors, and the test fails at the end if there was any (a broken script on a page that still
renders is a failure, not a warning).
"""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

#: console errors that say nothing about the page's own code: a request cut short as the test
#: ends or navigates away (the live picture and the event stream are endless responses)
NOT_THE_PAGE = ("net::ERR_ABORTED", "net::ERR_CONNECTION_REFUSED", "net::ERR_EMPTY_RESPONSE")
#: answers the page asks for and handles itself when they are refusals (a 400 for bad input, a 503
#: still picture before the first frame): Chromium logs each as "Failed to load resource"
HANDLED = ("/api/", "/snapshot.jpg", "/video.mjpg", "/evidence/")


def _watch(page, errors: list[str]) -> None:
    page.on("pageerror", lambda exc: errors.append(f"{page.url}: uncaught {exc}"))

    def console(msg) -> None:
        if msg.type != "error" or any(s in msg.text for s in NOT_THE_PAGE):
            return
        source = urlsplit((msg.location or {}).get("url") or "").path
        if msg.text.startswith("Failed to load resource: the server responded") and source.startswith(HANDLED):
            return
        errors.append(f"{page.url}: console error: {msg.text} ({source})")

    page.on("console", console)


@pytest.fixture(autouse=True)
def page_errors(monkeypatch):
    """The page errors of this test's browser pages (the test fails at the end if there are any)."""
    errors: list[str] = []
    try:
        from playwright.sync_api import Browser, BrowserContext
    except ImportError:
        yield errors
        return
    for cls in (Browser, BrowserContext):
        made = cls.new_page

        def new_page(self, *args, _made=made, **kwargs):
            page = _made(self, *args, **kwargs)
            _watch(page, errors)
            return page

        monkeypatch.setattr(cls, "new_page", new_page)
    yield errors
    if errors:
        pytest.fail("page errors in the browser:\n" + "\n".join(errors[:20]), pytrace=False)
