"""Browser tests: Debian's headless Chromium driven by Playwright against the live stack.

Playwright's own browser download is never used (it cannot reach the internet here); the
system Chromium is launched by path. Without it the tests skip and say why; CI installs it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.factories import UserFactory

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# Screenshots of the pages, to look at, only when asked for: capturing and encoding them
# took ~0.3 s of Chromium's CPU each, about 20 s of a run, for files nobody opened.
SHOTS = Path(os.environ["UI_SHOTS_DIR"]) if os.environ.get("UI_SHOTS_DIR") else None
DESKTOP = {"width": 1280, "height": 860}
NARROW = {"width": 400, "height": 860}
PASSWORD = "correct horse battery"


@pytest.fixture(scope="package")
def chromium(live_stack) -> Iterator[Any]:
    """One browser for this package only: Playwright's sync API keeps an event loop running
    in this thread, which other tests (asyncio.run, mini-racer timeouts) must not see."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    from playwright.sync_api import sync_playwright

    # The tests' own ORM calls are plain synchronous code despite that loop.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def person(transactional_db) -> Any:
    user = UserFactory(username="ada")
    user.set_password(PASSWORD)
    user.save()
    return user


@pytest.fixture
def page(chromium, live_stack) -> Iterator[Any]:
    context = chromium.new_context(
        base_url=live_stack.base_url, viewport=DESKTOP, accept_downloads=True, locale="en-GB"
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def sign_in(page: Any, username: str = "ada", password: str = PASSWORD) -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/")


def save_shot(page: Any, name: str, *, full_page: bool = False) -> None:
    """Save the page as a person sees it to UI_SHOTS_DIR, when that is set."""
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / name), full_page=full_page)


SCROLL_WIDTH = "document.documentElement.scrollWidth"


def shoot(page: Any, name: str) -> None:
    """Check the page in a narrow window, and save it (desktop and narrow) when asked."""
    save_shot(page, f"{name}-desktop.png", full_page=True)
    page.set_viewport_size(NARROW)
    # Readable in a narrow window: nothing makes the whole page scroll sideways, once it
    # has adapted (the ops charts redraw for the new width after the resize event). Polled
    # from here: wait_for_function's polling runs its predicate through eval in the page,
    # which the pages' CSP refuses whenever the first reading is not yet the answer.
    width = page.evaluate(SCROLL_WIDTH)
    deadline = time.monotonic() + 5
    while width > NARROW["width"] and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        width = page.evaluate(SCROLL_WIDTH)
    save_shot(page, f"{name}-narrow.png", full_page=True)
    page.set_viewport_size(DESKTOP)
    assert width <= NARROW["width"], f"{name} is {width}px wide in a {NARROW['width']}px window"
