"""A person in two workspaces switches between them in the nav and sees only the chosen
workspace's templates and jobs."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shoot, sign_in
from tests.factories import PdfJobFactory, ReportTemplateFactory, UserFactory
from workspaces.services import membership_set, workspace_create, workspace_personal

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]


def test_switching_workspace_shows_only_its_templates_and_jobs(page, person, live_stack):
    own = workspace_personal(user=person)
    mine = ReportTemplateFactory(owner=person, workspace=own, name="Ada's letter", slug="letter")
    my_job = PdfJobFactory(owner=person, workspace=own, template=mine)
    fiona = UserFactory(username="fiona")
    finance = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=finance, user=person, role="editor")
    invoice = ReportTemplateFactory(
        owner=fiona, workspace=finance, name="Finance invoice", slug="invoice-fin"
    )
    team_job = PdfJobFactory(owner=fiona, workspace=finance, template=invoice)

    sign_in(page)
    switch = page.get_by_label("Workspace")
    expect(switch).to_have_value(str(own.pk))  # one's own workspace first
    expect(page.locator(f'[data-job-id="{my_job.job_id}"]')).to_be_visible()
    expect(page.locator(f'[data-job-id="{team_job.job_id}"]')).to_have_count(0)

    switch.select_option(label="Finance")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url("**/")
    expect(page.get_by_role("status")).to_contain_text("You are working in Finance.")
    expect(page.get_by_label("Workspace")).to_have_value(str(finance.pk))
    expect(page.locator(f'[data-job-id="{team_job.job_id}"]')).to_be_visible()
    expect(page.locator(f'[data-job-id="{my_job.job_id}"]')).to_have_count(0)
    shoot(page, "workspace-switched")

    page.get_by_role("link", name="New report").first.click()
    expect(page.locator(".tile-name", has_text="Finance invoice")).to_be_visible()
    expect(page.locator(".tile-name", has_text="Ada's letter")).to_have_count(0)
    # An editor, not an owner: the team's keys and usage are not in the nav.
    expect(page.get_by_role("link", name="API keys")).to_have_count(0)
    assert page.goto(f"/jobs/{my_job.job_id}/").status == 404  # not in this workspace

    page.goto("/")
    page.get_by_label("Workspace").select_option(label="ada (personal)")
    page.get_by_role("button", name="Switch").click()
    page.wait_for_url("**/")
    expect(page.locator(f'[data-job-id="{my_job.job_id}"]')).to_be_visible()
    expect(page.locator(f'[data-job-id="{team_job.job_id}"]')).to_have_count(0)
    page.get_by_role("link", name="New report").first.click()
    expect(page.locator(".tile-name", has_text="Ada's letter")).to_be_visible()
    expect(page.locator(".tile-name", has_text="Finance invoice")).to_have_count(0)
