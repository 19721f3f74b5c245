"""The new-report form shows the server's refusal of the data beside the data, on the tab
the person sent it from, and the page's own JSON check does not write over it."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from reports.samples import sample_files, template_sync_samples
from tests.browser.conftest import shoot, sign_in
from tests.factories import ReportTemplateFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(90)]

# A rule the generated form does not check in the browser, so only the server can refuse it.
TAGS_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
}


def test_schema_error_from_the_json_tab_shows_on_the_json_tab(page, person, live_stack):
    template_sync_samples()
    sign_in(page)
    page.goto("/reports/new/invoice/")
    page.wait_for_selector("form[data-ready=true]")  # a click before the script runs is lost
    page.get_by_role("tab", name="JSON").click()
    data = sample_files("invoice")[2]
    del data["company"]
    editor = page.get_by_label(re.compile("Data as JSON"))
    editor.fill(json.dumps(data, indent=2))
    page.get_by_role("button", name="Create PDF").click()

    page.wait_for_load_state()
    assert "/reports/new/invoice/" in page.url  # refused, not a job
    expect(page.get_by_role("tab", name="JSON")).to_have_attribute("aria-selected", "true")
    expect(editor).to_be_visible()
    error = page.locator("[data-server-error]")
    expect(error).to_be_visible()
    expect(error).to_contain_text("company")
    expect(error).to_contain_text("required")
    # What the person sent is still there to fix, and nothing says it is fine.
    assert "Northwind Traders" in editor.input_value()
    assert "company" not in json.loads(editor.input_value())
    expect(page.locator("[data-json-status]")).not_to_contain_text("Valid JSON")
    expect(editor).to_have_attribute("aria-invalid", "true")
    shoot(page, "30-form-server-error-json")

    # Fixed and sent again from the same tab: a job.
    page.get_by_role("button", name="Reset to sample").click()
    page.get_by_role("button", name="Create PDF").click()
    page.wait_for_url(re.compile(r"/jobs/[0-9a-f-]{36}/$"))


def test_schema_error_from_the_form_tab_shows_on_the_form_tab(page, person, live_stack):
    ReportTemplateFactory(
        owner=person,
        slug="tagged",
        name="Tagged",
        schema=TAGS_SCHEMA,
        sample_data={"title": "Q3", "tags": ["north", "south"]},
    )
    sign_in(page)
    page.goto("/reports/new/tagged/")
    form_tab = page.get_by_role("tab", name="Form")
    expect(form_tab).to_have_attribute("aria-selected", "true")
    page.get_by_label("Tags 2").fill("north")
    page.get_by_role("button", name="Create PDF").click()

    page.wait_for_load_state()
    assert "/reports/new/tagged/" in page.url
    expect(form_tab).to_have_attribute("aria-selected", "true")
    expect(page.locator("[data-schema-form]")).to_be_visible()
    expect(page.locator("[data-json-panel]")).to_be_hidden()
    error = page.locator("[data-server-error]")
    expect(error).to_be_visible()
    expect(error).to_contain_text("tags: item 1 repeats an earlier item")
    # The form shows what was sent (both tags "north"), not the sample again.
    expect(page.get_by_label("Tags 2")).to_have_value("north")
    shoot(page, "31-form-server-error-form")
