"""Hostile EJS templates: a template is JavaScript, so it runs only in a one-render child
process under the time and memory limits; prototype pollution stays in that render,
the host has nothing to reach, includes load nothing, and errors name their line."""

from __future__ import annotations

import pytest

from rendering.engines import get_engine
from rendering.errors import LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.limits import Limits

ejs = get_engine("ejs")


def test_an_endless_loop_meets_the_time_limit():
    with pytest.raises(LimitExceeded, match="longer than 200 ms"):
        ejs.render("<% while (true) {} %>", {}, Limits(template_timeout_ms=200))


def test_deep_recursion_is_a_template_error_with_its_line():
    source = "<p>\n<% function f(n) { return f(n + 1); } %>\n<%= f(0) %>"
    with pytest.raises(TemplateRuntimeError, match=r"line 3.*call stack") as failed:
        ejs.render(source, {})
    assert failed.value.line == 3


def test_huge_output_meets_the_html_limit():
    with pytest.raises(LimitExceeded, match="larger than the 1 MB"):
        ejs.render("<%- 'x'.repeat(2 << 20) %>", {}, Limits(max_html_bytes=1 << 20))


def test_allocation_past_the_memory_limit_fails_this_render_only():
    source = "<% var a = []; while (true) { a.push(new ArrayBuffer(1 << 20)); } %>"
    with pytest.raises(LimitExceeded, match="memory"):
        ejs.render(source, {}, Limits(template_max_memory_mb=32))
    assert ejs.render("<%= 6 * 7 %>", {}) == "42"


def test_prototype_pollution_stays_in_its_own_render():
    polluted = ejs.render(
        "<% Object.prototype.polluted = 'yes'; Array.prototype.map = null; %><%= ({}).polluted %>",
        {},
    )
    assert polluted == "yes"
    assert ejs.render("<%= typeof ({}).polluted %>|<%= [1].map(String) %>", {}) == "undefined|1"


def test_data_with_a_proto_key_does_not_pollute():
    data = {"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}
    assert ejs.render("<%= ({}).polluted %>|<%= typeof polluted %>", data) == "|undefined"


@pytest.mark.parametrize(
    "expression",
    [
        "typeof require",
        "typeof process",
        "typeof fetch",
        "typeof XMLHttpRequest",
        "typeof ({}).constructor.constructor('return this.process')()",
    ],
)
def test_the_host_has_nothing_to_reach(expression):
    assert ejs.render("<%= " + expression + " %>", {}) == "undefined"


@pytest.mark.parametrize("call", ["include('other')", "include('/etc/passwd')", "include('../x')"])
def test_include_loads_nothing_but_partials(call):
    with pytest.raises(TemplateRuntimeError, match=r"line 2.*no template with that slug") as failed:
        ejs.render("<p>\n<%- " + call + " %>", {})
    assert failed.value.line == 2


def test_escaping_and_data_never_becomes_code():
    html = ejs.render("<%= v %>|<%- v %>", {"v": "<b><%= 7 * 6 %></b>"})
    assert html == "&lt;b&gt;&lt;%= 7 * 6 %&gt;&lt;/b&gt;|<b><%= 7 * 6 %></b>"


def test_syntax_errors_are_found_without_running_the_template():
    # Checked where requests are answered: nothing of the template may run there.
    with pytest.raises(TemplateSyntaxError, match="line 2: a block opened here is never closed"):
        ejs.check("<p>\n<% if (x) { while (true) {} %>\n</p>")
    ejs.check("<% while (true) {} %>")  # valid, and checking it must not run it
