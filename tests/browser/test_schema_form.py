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


KEYWORDS_SCHEMA = {
    "type": "object",
    "properties": {
        "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "due": {"type": "string", "format": "date"},
        "when": {"type": "string", "format": "date"},
        "mark": {"enum": ["bar", "line"]},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
    },
}
KEYWORDS_DATA = {
    "currency": "EUR",
    "due": "2026-12-31",
    "when": "next week",  # not a date: shown as typed, never blanked
    "mark": "pie",  # outside the enum: kept for the server to judge, not swapped
    "tags": ["a"],
}


def test_form_honours_pattern_format_date_enum_and_item_bounds(page, person, live_stack):
    template_sync_samples()
    sign_in(page)
    page.goto("/reports/new/invoice/")
    page.evaluate(
        """async ([schema, data]) => {
            const {buildSchemaForm} = await import('/static/js/schema_form.js');
            const box = document.createElement('div');
            box.id = 'probe';
            document.querySelector('main').prepend(box);
            window.collect = buildSchemaForm(box, schema, data);
        }""",
        [KEYWORDS_SCHEMA, KEYWORDS_DATA],
    )
    probe = page.locator("#probe")
    assert page.evaluate("window.collect()") == KEYWORDS_DATA  # nothing lost or changed

    currency = probe.get_by_label("Currency")
    expect(currency).to_have_attribute("pattern", "^[A-Z]{3}$")
    currency.fill("eur")
    assert currency.evaluate("input => input.checkValidity()") is False
    currency.fill("GBP")
    assert currency.evaluate("input => input.checkValidity()") is True

    expect(probe.get_by_label("Due")).to_have_attribute("type", "date")
    expect(probe.get_by_label("Due")).to_have_value("2026-12-31")
    expect(probe.get_by_label("When")).to_have_value("next week")

    mark = probe.get_by_label("Mark")
    assert mark.evaluate("s => [...s.options].map(o => o.text)") == ["—", "pie", "bar", "line"]
    mark.select_option(label="line")

    add, remove = (
        probe.get_by_role("button", name="Add item"),
        probe.get_by_role("button", name="Remove"),
    )
    expect(remove).to_be_disabled()  # minItems 1
    expect(add).to_be_enabled()
    add.click()
    expect(add).to_be_disabled()  # maxItems 2
    expect(remove.first).to_be_enabled()
    expect(probe.locator(".sf-limits")).to_have_text("(at least 1, at most 2)")
    probe.get_by_label("Tags 2").fill("b")
    assert page.evaluate("window.collect()") == {
        **KEYWORDS_DATA,
        "currency": "GBP",
        "mark": "line",
        "tags": ["a", "b"],
    }
