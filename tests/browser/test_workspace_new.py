"""A team workspace made from the Members page (audited), the nav on one row at 1366 px,
and a workspace switch that returns to the page it was made from where that page means
the same in the other workspace."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import save_shot, sign_in
from tests.factories import PdfJobFactory, UserFactory
from workspaces.models import AuditEntry, Membership, Workspace
from workspaces.services import membership_set, workspace_create, workspace_personal

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]


def test_an_owner_makes_a_team_workspace_from_the_members_page(page, person, live_stack):
    sign_in(page)
    nav = page.get_by_role("navigation", name="Main")
    nav.get_by_text("Manage").click()  # the owner's pages, in one menu
    nav.get_by_role("link", name="Members").click()
    page.get_by_role("main").get_by_role("link", name="New team workspace").click()
    page.get_by_label("Name").fill("Finance")
    page.get_by_role("button", name="Create the workspace").click()
    page.wait_for_url("**/members/")
    expect(page.get_by_role("status")).to_contain_text("Finance is made")
    expect(page.get_by_role("heading", name="Members of Finance")).to_be_visible()
    # The members table fills its card, as the jobs list does (it was unstyled).
    members = page.locator("[data-members]")
    table, card = members.bounding_box(), members.locator("xpath=..").bounding_box()
    assert table["width"] > card["width"] * 0.9, (table, card)
    finance = Workspace.objects.get(slug="finance")
    assert Membership.objects.get(workspace=finance, user=person).role == "owner"
    expect(page.get_by_label("Workspace")).to_have_value(str(finance.pk))
    entry = AuditEntry.objects.get(workspace=finance)
    assert (entry.action, entry.actor, entry.target) == ("workspace.created", "ada", "Finance")

    # The same name again: refused on the page, saying why.
    page.goto("/workspaces/new/")
    page.get_by_label("Name").fill("Finance")
    page.get_by_role("button", name="Create the workspace").click()
    expect(page.get_by_role("alert")).to_contain_text("exists already")


def test_the_nav_stays_on_one_row_at_1366_px(page, person, live_stack):
    sign_in(page)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto("/")
    nav = page.get_by_role("navigation", name="Main")
    first = nav.get_by_role("link", name="My jobs").bounding_box()
    last = nav.get_by_role("button", name="Sign out").bounding_box()
    save_shot(page, "nav-1366.png")
    assert first is not None
    assert last is not None
    assert abs(first["y"] - last["y"]) < first["height"], (first, last)
    brand = page.get_by_role("link", name="PDF reports").bounding_box()
    assert brand is not None
    assert abs(brand["y"] - first["y"]) < first["height"], (brand, first)
    # The owner's pages open from one menu, over the page.
    nav.get_by_text("Manage").click()
    for name in ("Members", "API keys", "Usage", "Audit log", "Sign-on", "New team workspace"):
        expect(nav.get_by_role("link", name=name)).to_be_visible()
    save_shot(page, "nav-1366-menu.png")
    page.keyboard.press("Escape")  # closes, as a menu does
    expect(nav.get_by_role("link", name="Members")).to_be_hidden()
    nav.get_by_text("Manage").click()
    page.get_by_role("heading", name="My jobs").click()  # a click elsewhere closes it too
    expect(nav.get_by_role("link", name="Members")).to_be_hidden()
    # In a narrow window the open menu stays inside it (no sideways scroll).
    page.set_viewport_size({"width": 400, "height": 860})
    nav.get_by_text("Manage").click()
    expect(nav.get_by_role("link", name="Audit log")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 400


def test_switching_workspace_returns_to_the_same_page_where_it_means_the_same(
    page, person, live_stack
):
    fiona = UserFactory(username="fiona")
    finance = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=finance, user=person, role="editor")
    own = workspace_personal(user=person)
    job = PdfJobFactory(owner=person, workspace=own)
    sign_in(page)

    # The template gallery is the current workspace's: the switch stays there.
    page.goto("/reports/new/")
    page.get_by_label("Workspace").select_option(label="Finance")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url("**/reports/new/")
    expect(page.get_by_role("status")).to_contain_text("You are working in Finance.")

    # A page an editor may not see there (Usage, an owner's) goes to My jobs instead.
    page.get_by_label("Workspace").select_option(label="ada (personal)")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url("**/reports/new/")
    page.goto("/usage/")
    page.get_by_label("Workspace").select_option(label="Finance")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url(f"{live_stack.base_url}/")

    # One job of the old workspace would be a 404 in the new one: My jobs.
    page.get_by_label("Workspace").select_option(label="ada (personal)")
    page.get_by_role("button", name="Switch").click()
    page.goto(f"/jobs/{job.job_id}/")
    page.get_by_label("Workspace").select_option(label="Finance")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url(f"{live_stack.base_url}/")
