"""Hostile Django templates: no attribute walking, no debug output, no libraries, no
loading of other templates, and loops, nesting and output bounded like the other engines."""

from __future__ import annotations

import pytest

from rendering.engines import get_engine
from rendering.errors import LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.limits import Limits

django = get_engine("django")


@pytest.mark.parametrize(
    "source",
    [
        "{{ x.__class__ }}",
        "{{ x.__class__.__mro__ }}",
        "{{ x._meta }}",
        "{% for k in x.__dict__ %}{% endfor %}",
    ],
)
def test_underscored_attributes_are_refused_at_check(source):
    with pytest.raises(TemplateSyntaxError, match="line 1"):
        django.check(source)


def test_sorting_by_an_underscored_key_reaches_nothing():
    rows = [{"a": 2}, {"a": 1}]
    assert django.render("{{ x|dictsort:'__class__' }}", {"x": rows}) == ""
    assert django.render("{{ x|dictsort:'a.__class__' }}", {"x": rows}) == ""
    assert django.render("{% for r in x|dictsort:'a' %}{{ r.a }}{% endfor %}", {"x": rows}) == "12"


def test_methods_of_the_data_are_not_there_to_call():
    data = {"rows": [1, 2], "d": {"a": 1}, "empty": {}}
    html = django.render(
        "[{{ rows.pop }}{{ rows.clear }}{{ d.clear }}{{ d.popitem }}{{ d.setdefault }}"
        "{{ empty.fromkeys }}]{{ rows|length }}{{ d|length }}"
        "{% for k, v in d.items %}{{ k }}={{ v }}{% endfor %}",
        data,
    )
    assert html == "[]21a=1"
    assert data == {"rows": [1, 2], "d": {"a": 1}, "empty": {}}


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("<p>\n{% debug %}", "'debug'"),
        ("<p>\n{% load cache %}", "no library 'cache'"),
        ("<p>\n{% load admin_urls %}", "no library 'admin_urls'"),
        ("<p>\n{% load log from admin_urls %}", "load"),
        ("<p>\n{% url 'admin:index' %}", "'url'"),
        ("<p>\n{% csrf_token %}", "'csrf_token'"),
        ("<p>\n{% lorem 100000000 w %}", "'lorem'"),
    ],
)
def test_tags_that_reach_beyond_the_data_are_refused_with_their_line(source, reason):
    with pytest.raises(TemplateSyntaxError, match=f"line 2.*{reason}") as refused:
        django.check(source)
    assert refused.value.line == 2


@pytest.mark.parametrize(
    "source", ["<p>\n{% include 'reports/base.html' %}", "<p>\n{% extends 'base.html' %}"]
)
def test_include_and_extends_find_no_file_and_no_site_template(source):
    with pytest.raises(TemplateRuntimeError, match=r"no template '.*' to include"):
        django.render(source, {})


def test_deep_nesting_is_refused_not_a_crash():
    source = "{% if x %}" * 3000 + "{% endif %}" * 3000
    with pytest.raises(TemplateSyntaxError, match="nest too deeply"):
        django.check(source)


def test_nested_loops_meet_the_time_limit():
    source = (
        "{% for a in r %}{% for b in r %}{% for c in r %}{{ c }}"
        "{% endfor %}{% endfor %}{% endfor %}"
    )
    with pytest.raises(LimitExceeded, match="longer than 200 ms"):
        django.render(source, {"r": list(range(1000))}, Limits(template_timeout_ms=200))


def test_huge_output_stops_at_the_html_limit_while_it_is_written():
    # 10 GB if it ran: stopped at 1 MB, long before the memory ceiling or the clock.
    source = "{% for a in r %}{% for b in r %}{{ s }}<p>{% endfor %}{% endfor %}"
    data = {"r": list(range(1000)), "s": "x" * 10_000}
    with pytest.raises(LimitExceeded, match="larger than the 1 MB allowed on line 1"):
        django.render(source, data, Limits(max_html_bytes=1 << 20, template_max_memory_mb=64))
    assert django.render("{{ 6|add:36 }}", {}) == "42"


def test_a_value_too_large_for_memory_fails_this_render_only():
    source = "{{ s|center:900 }}{% for a in r %}{{ s|make_list|join:s|length }}{% endfor %}"
    data = {"r": [1], "s": "x" * 8000}
    with pytest.raises(LimitExceeded, match="16 MB of memory"):
        django.render(source, data, Limits(template_max_memory_mb=16))
    assert django.render("{{ 6|add:36 }}", {}) == "42"


def test_output_over_the_html_limit_is_refused():
    source = "{% for a in r %}{{ s }}{% endfor %}"
    data = {"r": list(range(30)), "s": "x" * 100_000}
    with pytest.raises(LimitExceeded, match="larger than the 1 MB"):
        django.render(source, data, Limits(max_html_bytes=1 << 20))


@pytest.mark.parametrize(
    "source",
    [
        "{{ x|center:2000000000 }}",
        "{{ x|ljust:'2000000000' }}",
        "{{ x|rjust:2000000000 }}",
        "{{ x|stringformat:'2000000000s' }}",
        "{{ x|stringformat:'*s' }}",
        "{{ 1.5|floatformat:2000000000 }}",
    ],
)
def test_width_bombs_are_refused_before_they_allocate(source):
    with pytest.raises(LimitExceeded, match="wider than the 1000 allowed"):
        django.render(source, {"x": "ab"})


def test_data_is_escaped_and_never_becomes_template_code():
    html = django.render("{{ v }}", {"v": "<b>{{ secret }}{% debug %}</b>"})
    assert html == "&lt;b&gt;{{ secret }}{% debug %}&lt;/b&gt;"


def test_a_failing_filter_names_its_line():
    with pytest.raises(TemplateRuntimeError, match="line 3") as failed:
        django.render("a\nb\n{{ x|format_currency:'ZZZ' }}", {"x": 1})
    assert failed.value.line == 3
