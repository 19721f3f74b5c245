"""Every HTML engine has a starter for a new template, and each renders its sample data."""

from __future__ import annotations

import pytest

from rendering.engines import ENGINE_NAMES, ENGINES_WITH_HELPERS, FILE_ENGINES, engine_render
from rendering.limits import DEFAULT_LIMITS
from reports.starters import STARTER_ENGINES, starter


def test_every_html_engine_has_a_starter():
    # A file template (a PDF form, a Word document) starts from the file a person has.
    assert STARTER_ENGINES == tuple(name for name in ENGINE_NAMES if name not in FILE_ENGINES)


@pytest.mark.django_db
@pytest.mark.parametrize("engine", STARTER_ENGINES)
def test_each_starter_renders_its_sample_data(engine):
    source = starter(engine)
    html = engine_render(engine, source["html"], source["sample_data"], DEFAULT_LIMITS)
    assert "Order 2026-0042" in html
    assert "Widget" in html
    if engine != "raw":
        assert "Gadget" in html  # the loop ran over both items


def test_only_handlebars_takes_helpers():
    assert ENGINES_WITH_HELPERS == ("handlebars",)


def test_a_loop_starter_is_the_heading_and_a_row_between_the_loops_lines():
    # reports.starters._loop_page builds every starter but raw's: pinned to the byte here.
    assert starter("mustache")["html"] == (
        "<h1>{{title}}</h1>\n<table>\n{{#items}}\n"
        '<tr><td>{{name}}</td><td class="amount">{{amount}}</td></tr>'
        "\n{{/items}}\n</table>"
    )
