"""The template engines: real semantics, line numbers on errors, no escape to the host."""

from __future__ import annotations

import pytest

from reports.engines import ENGINE_NAMES, get_engine
from reports.errors import LimitExceeded, RenderError, TemplateRuntimeError, TemplateSyntaxError


def test_engine_names_are_the_three_supported():
    assert set(ENGINE_NAMES) == {"raw", "handlebars", "jinja2"}


def test_unknown_engine_is_a_render_error_listing_the_known_ones():
    with pytest.raises(RenderError, match="handlebars"):
        get_engine("mustache")


def test_raw_returns_html_untouched():
    assert get_engine("raw").render("<p>{{x}}</p>", {"x": 1}) == "<p>{{x}}</p>"


def test_handlebars_each_index_first_last_and_escaping():
    source = (
        "{{#each rows}}[{{@index}}{{#if @first}}F{{/if}}{{#if @last}}L{{/if}}:{{name}}]{{/each}}"
    )
    html = get_engine("handlebars").render(source, {"rows": [{"name": "<a>"}, {"name": "b"}]})
    assert html == "[0F:&lt;a&gt;][1L:b]"


def test_handlebars_helpers_format_and_compute():
    source = (
        "{{formatCurrency (sumProduct items 'q' 'p') 'EUR'}}|{{formatNumber 1234.5 1}}|"
        "{{formatDate '2026-11-30'}}|{{#if (odd 3)}}odd{{/if}}|{{add 1 2}}"
    )
    data = {"items": [{"q": 2, "p": 10.25}, {"q": 1, "p": 1}]}
    assert get_engine("handlebars").render(source, data) == (
        "€21.50|1,234.5|November 30, 2026|odd|3"
    )


def test_handlebars_syntax_error_names_the_line():
    engine = get_engine("handlebars")
    with pytest.raises(TemplateSyntaxError) as caught:
        engine.check("<p>ok</p>\n<p>{{#each items}}</p>\n{{/if}}")
    assert caught.value.line == 2
    assert "line" in caught.value.message
    assert "each doesn't match if" in caught.value.message


def test_handlebars_unclosed_mustache_is_a_syntax_error_at_render_too():
    with pytest.raises(TemplateSyntaxError, match="line 2"):
        get_engine("handlebars").render("ok\n{{name", {})


def test_handlebars_infinite_helper_loop_hits_the_time_limit(settings):
    settings.PDF_TEMPLATE_TIMEOUT_MS = 200
    # A registered block helper can only be reached through templates; a huge #each is the
    # closest a template gets to spinning, so use recursion through partial-like nesting.
    source = "{{#each rows}}{{#each ../rows}}{{#each ../../rows}}x{{/each}}{{/each}}{{/each}}"
    with pytest.raises(LimitExceeded, match="longer than 200 ms"):
        get_engine("handlebars").render(source, {"rows": list(range(600))})


def test_handlebars_cannot_reach_prototypes_or_host():
    engine = get_engine("handlebars")
    html = engine.render("{{constructor.constructor}}|{{__proto__}}|{{this.constructor}}", {})
    assert html == "||"
    with pytest.raises(TemplateRuntimeError):
        engine.render("{{lookup (require 'fs') 'readFileSync'}}", {})


def test_jinja2_renders_autoescaped_and_reports_syntax_line():
    engine = get_engine("jinja2")
    assert engine.render("{% for r in rows %}{{ r }};{% endfor %}", {"rows": ["<b>", 2]}) == (
        "&lt;b&gt;;2;"
    )
    with pytest.raises(TemplateSyntaxError) as caught:
        engine.check("line one\nline two\n{{ x + }}")
    assert caught.value.line == 3


def test_jinja2_sandbox_blocks_python_internals():
    engine = get_engine("jinja2")
    with pytest.raises(TemplateRuntimeError, match=r"forbidden|unsafe|not safely|access"):
        engine.render("{{ ''.__class__.__mro__[1].__subclasses__() }}", {})
    with pytest.raises(TemplateRuntimeError):
        engine.render("{{ rows.append(1) }}", {"rows": []})
