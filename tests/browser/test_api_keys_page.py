"""API keys in a real browser: create one, copy it (shown once), use it, revoke it."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shoot, sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(60)]


def test_create_copy_use_and_revoke_a_key(page, person, live_stack):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page)
    page.get_by_role("navigation", name="Main").get_by_text("Manage").click()  # the owner's menu
    page.get_by_role("navigation", name="Main").get_by_role("link", name="API keys").click()
    expect(page.get_by_text("You have no API keys yet.")).to_be_visible()
    page.get_by_label("Name").fill("billing system")
    page.get_by_role("button", name="Create key").click()

    secret = page.get_by_label("New API key").input_value()
    assert re.fullmatch(r"rk_[0-9a-f]{12}_\S+", secret)
    page.get_by_role("button", name="Copy", exact=True).click()
    expect(page.locator("[data-copy-status]")).to_have_text("Copied to the clipboard.")
    assert page.evaluate("navigator.clipboard.readText()") == secret
    # The key's webhook signing secret is shown once beside it, with its own copy button.
    webhook_secret = page.get_by_label("Webhook signing secret").input_value()
    assert webhook_secret.startswith("whsec_")
    page.get_by_role("button", name="Copy secret").click()
    assert page.evaluate("navigator.clipboard.readText()") == webhook_secret
    shoot(page, "09-api-key-created")

    jobs_url = live_stack.url("/api/v1/jobs")
    assert httpx.get(jobs_url, headers={"X-API-Key": secret}).status_code == 200

    page.get_by_role("navigation", name="Main").get_by_text("Manage").click()  # the owner's menu
    page.get_by_role("navigation", name="Main").get_by_role("link", name="API keys").click()
    assert secret not in page.content()  # shown once only
    row = page.locator("tbody tr", has_text="billing system")
    expect(row.locator(".status")).to_have_text("Active")
    revoke = row.get_by_role("button", name=re.compile("^Revoke"))
    # Revoking asks first; saying no leaves the key working.
    questions: list[str] = []

    def answer(dialog, accept: bool) -> None:
        questions.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, accept=False))
    revoke.click()
    expect(row.locator(".status")).to_have_text("Active")
    assert questions
    assert 'Revoke the key "billing system"?' in questions[0]
    assert "cannot be turned back on" in questions[0]
    assert httpx.get(jobs_url, headers={"X-API-Key": secret}).status_code == 200
    page.once("dialog", lambda dialog: answer(dialog, accept=True))
    revoke.click()
    expect(page.get_by_text("is revoked")).to_be_visible()
    expect(row.locator(".status")).to_have_text("Revoked")
    shoot(page, "10-api-keys")
    assert httpx.get(jobs_url, headers={"X-API-Key": secret}).status_code == 401


def test_pages_work_from_the_keyboard_and_sign_out(page, person, live_stack):
    sign_in(page)
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.keyboard.press("Tab")  # the brand
    page.keyboard.press("Tab")
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="My jobs")
    ).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # "New report"
    expect(page.get_by_role("heading", name="New report")).to_be_visible()
    page.get_by_role("button", name="Sign out").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.goto("/keys/")
    expect(page).to_have_url(re.compile(r"/login/\?next=/keys/$"))
