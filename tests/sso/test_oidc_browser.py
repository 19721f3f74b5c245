"""The same sign-in in real Chromium: the button on our page, the provider's forms, back to
the service; cookies (SameSite), redirects and our Content-Security-Policy as a browser
applies them."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, DESKTOP, shoot
from tests.factories import UserFactory
from workspaces.models import Membership, Role, SsoDomain
from workspaces.services import workspace_create, workspace_sso_set

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_page(live_server) -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []
    earlier = set(threading.enumerate())
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # the test's ORM calls, beside its loop
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context(base_url=live_server.url, viewport=DESKTOP)
            context.set_default_timeout(15_000)
            page = context.new_page()
            page.on(
                "console", lambda m: blocked.append(m.text) if "Content-Security" in m.text else 0
            )
            yield page
            browser.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    # Chromium kept connections alive; their server threads (each with a database
    # connection) end now that it is gone, before the test database is dropped. Only this
    # test's: a request thread an earlier test's server left blocked (a tarpit receiver)
    # is not this test's to wait for, and waiting 10 s for each cost 20 s in a full run.
    for thread in set(threading.enumerate()) - earlier:
        if "process_request_thread" in thread.name:
            thread.join(timeout=10)
    assert not blocked, f"the browser blocked: {blocked}"


def test_sign_in_with_the_provider_in_chromium(oidc_provider, browser_page, live_server):
    owner = UserFactory(username="acme-owner", email="boss@example.com")
    acme = workspace_create(name="Acme", owner=owner)
    workspace_sso_set(workspace=acme, domains=["example.com"], role="requester", by=owner)
    SsoDomain.objects.filter(workspace=acme).update(verified=True)  # an operator's approval
    page = browser_page
    # The account page: the dashboard would hold a live stream open past the test's end.
    page.goto("/login/?next=/account/")
    shoot(page, "sso-00-sign-in")
    page.get_by_role("link", name="Sign in with Test OP").click()
    page.locator("input[name=login]").fill("fay@example.com")
    page.locator("input[name=password]").fill("anything")
    page.locator("button[type=submit]").click()
    page.locator("button[type=submit]").click()  # the provider's consent: Continue
    page.wait_for_url(f"{live_server.url}/account/")
    assert page.get_by_role("heading", name="Account").is_visible()
    fay = User.objects.get(email="fay@example.com")
    assert Membership.objects.get(user=fay, workspace=acme).role == Role.REQUESTER
    # The joined workspace is offered in the switcher.
    assert "Acme" in page.locator("#workspace-choice").inner_text()
