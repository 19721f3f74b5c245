"""The form generated from a template's JSON Schema, run in the browser: it shows the
sample data in fields, and reading it back gives the data, edits included."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from reports.samples import template_sync_samples
from tests.browser.conftest import shoot, sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(60)]

SCHEMA = {
    "type": "object",
    "required": ["title"],
    "properties": {
        "title": {"type": "string", "title": "Report title"},
        "year": {"type": "integer", "minimum": 2000},
        "draft": {"type": "boolean"},
        "region": {"enum": ["North", "South"]},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "title": "Line",
                "properties": {"item": {"type": "string"}, "price": {"type": "number"}},
            },
        },
    },
}
DATA = {
    "title": "Q3",
    "year": 2026,
    "draft": False,
    "region": "South",
    "lines": [{"item": "Gear", "price": 2.5}],
    "untouched": {"kept": True},
}


def test_generated_form_round_trips_the_data(page, person, live_stack):
    template_sync_samples()
    sign_in(page)
    page.goto("/reports/new/invoice/")
    page.evaluate(
        """async ([schema, data]) => {
            const {buildSchemaForm} = await import('/static/js/schema_form.js');
            const box = document.createElement('div');
            box.id = 'probe';
            box.className = 'card';
            document.querySelector('main').prepend(box);
            window.collect = buildSchemaForm(box, schema, data);
        }""",
        [SCHEMA, DATA],
    )
    probe = page.locator("#probe")
    expect(probe.get_by_label("Report title")).to_have_value("Q3")
    expect(probe.get_by_label("Year")).to_have_value("2026")
    assert page.evaluate("window.collect()") == DATA

    probe.get_by_label("Report title").fill("Q4")
    probe.get_by_label("Draft").check()
    probe.get_by_label("Region").select_option(label="North")
    probe.get_by_role("button", name="Add line").click()
    probe.get_by_label("Item").nth(1).fill("Sprocket")
    probe.get_by_label("Price").nth(1).fill("4")
    shoot(page, "11-schema-form")
    got = page.evaluate("window.collect()")
    assert got == {
        **DATA,
        "title": "Q4",
        "draft": True,
        "region": "North",
        "lines": [{"item": "Gear", "price": 2.5}, {"item": "Sprocket", "price": 4}],
    }
