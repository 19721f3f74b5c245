"""Hostile Mustache templates (handlebars.js in its isolate, Mustache subset): prototype
walking reaches nothing, Handlebars-only constructs and partials are refused with their
line, and repetition driven by the data meets the time and output limits."""

from __future__ import annotations

import pytest

from rendering.engines import get_engine
from rendering.errors import LimitExceeded, TemplateSyntaxError
from rendering.limits import Limits

mustache = get_engine("mustache")


@pytest.mark.parametrize(
    "source",
    [
        "{{constructor}}",
        "{{__proto__}}",
        "{{#constructor}}{{name}}{{/constructor}}",
        "{{s.constructor.constructor}}",
        "{{#__proto__}}{{polluted}}{{/__proto__}}",
        "{{#s}}{{#constructor}}{{#prototype}}{{toString}}{{/prototype}}{{/constructor}}{{/s}}",
    ],
)
def test_prototype_walking_finds_nothing(source):
    assert mustache.render(source, {"s": "text"}) == ""


def test_data_cannot_pollute_the_prototype_of_the_next_lookup():
    data = {"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"x": "y"}}, "a": {}}
    assert mustache.render("[{{a.polluted}}{{#a}}{{polluted}}{{/a}}]", data) == "[]"


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("<p>\n{{> header x}}", "a Mustache partial takes one name"),
        ("<p>\n{{#> layout}}x{{/layout}}", "partial blocks"),
        ('<p>\n{{#*inline "x"}}y{{/inline}}', "inline partials"),
        ("<p>\n{{#each rows}}{{/each}}", "helper call"),
        ("<p>\n{{lookup . 'constructor'}}", "helper call"),
        ("<p>\n{{#rows}}{{@index}}{{/rows}}", "data variable"),
        ("<p>\n{{#rows}}{{../x}}{{/rows}}", "../ paths"),
        ("<p>\n{{=<% %>=}}", "set delimiters"),
    ],
)
def test_handlebars_only_constructs_are_refused_with_their_line(source, reason):
    with pytest.raises(TemplateSyntaxError, match=f"line 2.*{reason}") as refused:
        mustache.check(source)
    assert refused.value.line == 2
    with pytest.raises(TemplateSyntaxError, match=reason):
        mustache.render(source, {"rows": [1]})


def test_nested_sections_over_the_data_meet_the_time_limit():
    # An inner {{#r}} finds the outer r again (Mustache looks names up through the
    # enclosing sections): 200 numbers become 1.6 billion iterations.
    source = "{{#r}}{{#r}}{{#r}}{{#r}}{{/r}}{{/r}}{{/r}}{{/r}}"
    with pytest.raises(LimitExceeded, match="longer than 300 ms"):
        mustache.render(source, {"r": list(range(200))}, Limits(template_timeout_ms=300))


def test_output_driven_by_the_data_meets_the_html_limit():
    data = {"rows": [{"s": "x" * 10_000}] * 200}
    with pytest.raises(LimitExceeded, match="larger than the 1 MB"):
        mustache.render("{{#rows}}{{s}}{{/rows}}", data, Limits(max_html_bytes=1 << 20))


def test_data_is_escaped_and_never_becomes_template_code():
    html = mustache.render("{{v}}|{{{v}}}", {"v": "<b>{{x}}</b>"})
    assert html == "&lt;b&gt;{{x}}&lt;/b&gt;|<b>{{x}}</b>"
