"""Partials by slug at the engine level: each engine includes the templates it is given
and nothing else; missing slugs, cycles and depth are template errors naming the slug."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rendering.engines import engine_render
from rendering.engines.partials import MAX_DEPTH, partial_names, partials_check
from rendering.errors import LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from tests.conftest import pdf_text

DATA = {"t": "x<", "rows": [1, 2]}
CASES = {
    "liquid": (
        "<h1>{% render 'header', title: t %}</h1>{% include 'footer' %}",
        {"header": "H:{{ title }}", "footer": "F:{{ t }}"},
        "<h1>H:x<</h1>F:x<",
    ),
    "django": (
        "{% extends 'base' %}{% block body %}B:{{ t }}{% include 'footer' %}{% endblock %}",
        {"base": "<main>{% block body %}{% endblock %}</main>", "footer": "|F:{{ t }}"},
        "<main>B:x&lt;|F:x&lt;</main>",
    ),
    "jinja2": (
        "{% extends 'base' %}{% block body %}B:{{ t }}{% include 'footer' %}{% endblock %}",
        {"base": "<main>{% block body %}{% endblock %}</main>", "footer": "|F:{{ t }}"},
        "<main>B:x&lt;|F:x&lt;</main>",
    ),
    "handlebars": (
        "<h1>{{> header}}</h1>{{> footer}}",
        {"header": "H:{{t}}", "footer": "F:{{t}}"},
        "<h1>H:x&lt;</h1>F:x&lt;",
    ),
    "mustache": (
        "<h1>{{> header}}</h1>{{#rows}}{{> row}}{{/rows}}",
        {"header": "H:{{t}}", "row": "[{{.}}]"},
        "<h1>H:x&lt;</h1>[1][2]",
    ),
    "ejs": (
        "<h1><%- include('header', {t: t}) %></h1><%- include('footer') %>",
        {"header": "H:<%= t %>", "footer": "F:<%= t %>"},
        "<h1>H:x&lt;</h1>F:x&lt;",
    ),
}


@pytest.mark.parametrize("engine", sorted(CASES))
def test_each_engine_includes_the_partials_it_is_given_by_slug(engine):
    source, partials, html = CASES[engine]
    assert engine_render(engine, source, DATA, limits_from_settings(), partials=partials) == html
    assert partial_names(engine, source) == sorted(partials, key=source.index)


@pytest.mark.parametrize(
    ("engine", "source"),
    [
        ("liquid", "{% render 'other' %}"),
        ("handlebars", "{{> other}}"),
        ("ejs", "<%- include('other') %>"),
        ("django", "{% include 'other' %}"),
    ],
)
def test_a_missing_slug_is_an_error_naming_it(engine, source):
    with pytest.raises(TemplateSyntaxError, match="no template 'other' to include"):
        engine_render(engine, source, {}, limits_from_settings(), partials={"a": "x"})


def test_a_cycle_and_a_template_that_includes_itself_name_the_slugs():
    cycle = {"a": "{% render 'b' %}", "b": "{% render 'a' %}"}
    with pytest.raises(TemplateSyntaxError, match=r"'a' includes itself \(a -> b -> a\)"):
        engine_render("liquid", "{% render 'a' %}", {}, limits_from_settings(), partials=cycle)
    with pytest.raises(TemplateSyntaxError, match=r"'invoice' includes itself"):
        partials_check("handlebars", "{{> invoice}}", {"invoice": "x"}, slug="invoice")


def test_partials_nest_no_deeper_than_the_bound():
    chain = {f"p{i}": f"{{{{> p{i + 1}}}}}" for i in range(MAX_DEPTH + 2)}
    chain[f"p{MAX_DEPTH + 2}"] = "end"
    with pytest.raises(TemplateSyntaxError, match=f"deeper than {MAX_DEPTH}"):
        partials_check("handlebars", "{{> p0}}", chain)
    short = {f"p{i}": f"{{{{> p{i + 1}}}}}" for i in range(MAX_DEPTH - 1)}
    short[f"p{MAX_DEPTH - 1}"] = "end"
    assert engine_render("handlebars", "{{> p0}}", {}, limits_from_settings(), partials=short) == (
        "end"
    )


def test_a_name_chosen_at_render_finds_only_the_given_partials():
    with pytest.raises(TemplateRuntimeError, match="no template with that slug"):
        engine_render(
            "ejs",
            "<%- include(name) %>",
            {"name": "/etc/passwd"},
            limits_from_settings(),
            partials={"a": "x"},
        )


def test_partials_reach_the_pdf():
    rendered = report_render(
        source=TemplateSource(
            engine="liquid",
            html="<h1>Invoice {{ n }}</h1>{% render 'terms', days: 30 %}",
            partials={"terms": "<p>Payable within {{ days }} days.</p>"},
        ),
        data={"n": "A-1"},
        options=parse_options({}),
        limits=limits_from_settings(),
    )
    _, text = pdf_text(rendered.content)
    assert "Invoice A-1" in text
    assert "Payable within 30 days." in text


# One include of each engine, and a partial that writes `s`.
BIG = {
    "liquid": ("{% render 'big', s: s %}", "{{ s }}"),
    "django": ("{% include 'big' %}", "{{ s }}"),
    "jinja2": ("{% include 'big' %}", "{{ s }}"),
    "handlebars": ("{{> big}}", "{{s}}"),
    "mustache": ("{{> big}}", "{{s}}"),
    "ejs": ("<%- include('big') %>", "<%= s %>"),
}


@pytest.mark.parametrize("engine", sorted(BIG))
def test_the_included_output_counts_toward_the_templates_own_limit(engine):
    include, partial = BIG[engine]
    limits = replace(limits_from_settings(), max_html_bytes=1500)
    data = {"s": "x" * 1000}  # one include fits, two do not
    once = engine_render(engine, include, data, limits, partials={"big": partial})
    assert once == "x" * 1000
    with pytest.raises(LimitExceeded):
        engine_render(engine, include * 2, data, limits, partials={"big": partial})
