"""An owner invites an address on the Members page; the invitee opens the link in another
browser, makes an account and lands in the team's workspace; the link then says it was
used."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, shoot, sign_in
from workspaces.models import Membership
from workspaces.services import workspace_create

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]


def test_an_invitation_is_sent_accepted_and_then_used(page, person, chromium, live_stack):
    finance = workspace_create(name="Finance", owner=person)
    sign_in(page)
    page.get_by_label("Workspace").select_option(label="Finance")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url("**/")
    page.get_by_role("navigation", name="Main").get_by_text("Manage").click()  # the owner's menu
    page.get_by_role("link", name="Members").click()
    page.get_by_label("Email address").fill("nina@example.com")
    page.get_by_label("Role", exact=True).select_option("editor")
    page.get_by_role("button", name="Invite").click()
    notice = page.get_by_role("status")
    expect(notice).to_contain_text("Invitation mailed to nina@example.com as editor")
    expect(page.locator('[data-invited="nina@example.com"]')).to_be_visible()
    shoot(page, "members-invited")
    found = re.search(r"(/invitations/\S+/)", notice.inner_text())
    assert found is not None
    link = found.group(1)

    other = chromium.new_context(base_url=live_stack.base_url, viewport=DESKTOP)
    invitee = other.new_page()
    invitee.goto(link)
    expect(invitee.get_by_role("heading", name="Join Finance")).to_be_visible()
    shoot(invitee, "invitation")
    invitee.get_by_label("Username").fill("nina")
    invitee.get_by_label("Password", exact=True).fill("a-Long-pass-42")
    invitee.get_by_label("Password again").fill("a-Long-pass-42")
    invitee.get_by_role("button", name="Make my account and join").click()
    invitee.wait_for_url("**/")
    expect(invitee.get_by_role("status")).to_contain_text("Welcome to Finance (editor)")
    expect(invitee.get_by_label("Workspace")).to_have_value(str(finance.pk))
    assert Membership.objects.get(workspace=finance, user__username="nina").role == "editor"

    response = invitee.goto(link)
    assert response is not None
    assert response.status == 410
    expect(invitee.locator("[data-invitation-invalid]")).to_contain_text("was used already")
    other.close()
