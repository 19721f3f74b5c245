"""The account page in a real browser: change the email address and the password (then
sign in with the new one); the demo account's short password is explained, not hidden."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from accounts.demo import DEMO_PASSWORD, DEMO_USERNAME
from tests.browser.conftest import PASSWORD, shoot, sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]
NEW_PASSWORD = "a longer passphrase of mine"


def test_change_email_and_password_then_sign_in_with_the_new_one(page, person, live_stack):
    sign_in(page)
    page.goto("/account/")
    expect(page.locator("[data-demo-password]")).to_have_count(0)  # not the demo account

    page.get_by_role("textbox", name="Email address").fill("not an address")
    page.get_by_role("button", name="Save email address").click()
    expect(page.get_by_role("alert")).to_contain_text("valid email address")
    page.get_by_role("textbox", name="Email address").fill("ada@example.com")
    page.get_by_role("button", name="Save email address").click()
    expect(page.get_by_text("Job mail now goes to ada@example.com.")).to_be_visible()
    expect(page.get_by_role("textbox", name="Email address")).to_have_value("ada@example.com")
    expect(page.locator("[data-email]")).to_have_text("ada@example.com")
    assert User.objects.get(pk=person.pk).email == "ada@example.com"

    # The policy is enforced and said: too short is refused with the rule.
    page.get_by_label("Old password").fill(PASSWORD)
    page.get_by_label("New password", exact=True).fill("short")
    page.get_by_label("New password confirmation").fill("short")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_role("alert").first).to_contain_text("at least 12 characters")
    page.get_by_label("Old password").fill(PASSWORD)
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_text("Your password is changed.")).to_be_visible()
    shoot(page, "32-account")

    page.get_by_role("button", name="Sign out").click()
    sign_in(page, password=NEW_PASSWORD)
    expect(page.get_by_role("heading", name="My jobs")).to_be_visible()


def test_the_demo_password_is_explained_until_it_is_replaced(page, transactional_db, live_stack):
    demo = User.objects.create(username=DEMO_USERNAME)
    demo.set_password(DEMO_PASSWORD)  # as seed_demo sets it, past the validators
    demo.save()
    sign_in(page, username=DEMO_USERNAME, password=DEMO_PASSWORD)
    page.goto("/account/")
    note = page.locator("[data-demo-password]")
    expect(note).to_contain_text("shorter than the password rules below allow")
    expect(note).to_contain_text("make run")
    page.get_by_label("Old password").fill(DEMO_PASSWORD)
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_text("Your password is changed.")).to_be_visible()
    expect(note).to_have_count(0)
