"""Templates bring their own Handlebars helpers (JavaScript, in the same isolate and limits),
and Jinja2 and Handlebars format dates, numbers and money for a locale."""

from __future__ import annotations

import time

import pytest

from rendering.engines import engine_render as _engine_render
from rendering.engines import helpers_check as _helpers_check
from rendering.errors import LimitExceeded, RenderError, TemplateRuntimeError, TemplateSyntaxError
from reports.limits import limits_from_settings


def engine_render(engine: str, source: str, data: dict, helpers: str = "") -> str:
    # The configured limits, read now, so a test's settings count.
    return _engine_render(engine, source, data, limits_from_settings(), helpers=helpers)


def helpers_check(engine: str, helpers: str) -> None:
    _helpers_check(engine, helpers, limits_from_settings())


JSREPORT_HELPERS = """
function total(items) {
  return items.reduce(function (sum, item) { return sum + item.price * item.quantity; }, 0);
}

function formatMoney(value, currency) {
  return new Intl.NumberFormat("en-GB", {style: "currency", currency: currency}).format(value);
}

function shout(text) {
  return text.toUpperCase() + "!";
}
"""


def test_top_level_functions_become_helpers():
    html = engine_render(
        "handlebars",
        "<p>{{formatMoney (total items) 'GBP'}}</p><p>{{shout name}}</p><p>{{upper name}}</p>",
        {"items": [{"price": 2.5, "quantity": 4}, {"price": 1, "quantity": 3}], "name": "ada"},
        JSREPORT_HELPERS,
    )
    assert "<p>£13.00</p>" in html
    assert "<p>ADA!</p>" in html
    assert "<p>ADA</p>" in html  # the built-in helpers are still there


def test_helper_output_is_escaped_like_any_value():
    html = engine_render(
        "handlebars", "{{bold name}}", {"name": "x"}, "function bold(v) { return '<b>' + v; }"
    )
    assert html == "&lt;b&gt;x"


def test_a_syntax_error_in_the_helpers_names_the_line():
    helpers = "function ok() { return 1; }\n\nfunction broken(a {\n  return a;\n}\n"
    with pytest.raises(TemplateSyntaxError, match=r"Helpers syntax error on line 3") as failure:
        helpers_check("handlebars", helpers)
    assert failure.value.line == 3


@pytest.mark.parametrize("helpers", ["1n", "Symbol()", "new Promise(() => {})", "(x) => x"])
def test_helpers_whose_last_value_python_cannot_read_still_load_at_once(helpers, settings):
    # A BigInt as the script's value once failed inside mini-racer, the check waited out
    # the time limit, and closing that isolate later crashed the web process.
    settings.PDF_TEMPLATE_TIMEOUT_MS = 60_000
    started = time.monotonic()
    helpers_check("handlebars", helpers)
    assert time.monotonic() - started < 5


def test_a_failing_helper_is_a_template_error_naming_it():
    with pytest.raises(TemplateRuntimeError, match="nope"):
        engine_render("handlebars", "{{fail}}", {}, "function fail() { throw new Error('nope'); }")


def test_helpers_run_under_the_templates_time_limit(settings):
    settings.PDF_TEMPLATE_TIMEOUT_MS = 300
    started = time.monotonic()
    helpers_check("handlebars", "while (true) {}")  # checked, not run: nothing to wait for
    assert time.monotonic() - started < 1
    with pytest.raises(LimitExceeded, match="300 ms"):
        engine_render("handlebars", "{{spin}}", {}, "function spin() { while (true) {} }")


def test_helpers_cannot_reach_python_or_the_network():
    html = engine_render(
        "handlebars",
        "{{probe}}",
        {},
        "function probe() { return [typeof require, typeof fetch, typeof XMLHttpRequest,"
        " typeof process].join(','); }",
    )
    assert html == "undefined,undefined,undefined,undefined"


def test_helpers_belong_to_handlebars_only():
    with pytest.raises(RenderError, match="helpers are JavaScript for handlebars"):
        helpers_check("jinja2", "function x() {}")


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ('{{formatCurrency n "EUR" "de-DE"}}', "1.234,50\xa0€"),
        ("{{formatCurrency n}}", "$1,234.50"),
        ('{{formatNumber n 1 "fr-FR"}}', "1\u202f234,5"),
        ('{{formatDate d "de-DE"}}', "30. November 2026"),
        ("{{formatDate d}}", "November 30, 2026"),
    ],
)
def test_handlebars_formatting_takes_a_locale(template, expected):
    assert engine_render("handlebars", template, {"n": 1234.5, "d": "2026-11-30"}) == expected


def test_an_unknown_locale_in_handlebars_is_an_error():
    with pytest.raises(TemplateRuntimeError, match="unknown locale"):
        engine_render("handlebars", '{{formatDate d "not a locale"}}', {"d": "2026-11-30"})


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ('{{ d|format_date("long", "de-DE") }}', "30. November 2026"),
        ("{{ d|format_date }}", "Nov 30, 2026"),
        ('{{ t|format_datetime("short", "en_GB", "Europe/Lisbon") }}', "30/11/2026, 15:00"),
        ('{{ n|format_number(2, "de") }}', "1.234.567,89"),
        ("{{ n|format_number }}", "1,234,567.891"),
        ('{{ n|format_currency("EUR", "fr-FR") }}', "1\u202f234\u202f567,89\xa0€"),
        ('{{ n|format_currency("JPY", "ja") }}', "￥1,234,568"),
    ],
)
def test_jinja_babel_filters(template, expected):
    data = {"d": "2026-11-30", "t": "2026-11-30T15:00:00Z", "n": 1234567.891}
    assert engine_render("jinja2", template, data) == expected


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ('{{ n|format_currency("EUR", "xx-YY") }}', "unknown locale 'xx-YY'"),
        ('{{ n|format_currency("ZZZ") }}', "unknown currency 'ZZZ'"),
        ("{{ d|format_date }}", "is not an ISO 8601 date"),
        ("{{ d|format_number }}", "is not a number"),
    ],
)
def test_jinja_filters_explain_bad_input(template, message):
    with pytest.raises(TemplateRuntimeError, match=message):
        engine_render("jinja2", template, {"n": 1, "d": "soon"})
