"""Hostile Liquid templates: loops, nesting, huge output, attribute walking and includes
all stop with a message a person can act on, and the process that asked carries on."""

from __future__ import annotations

import time

import pytest

from rendering.engines import get_engine
from rendering.engines.liquid import LiquidEngine
from rendering.engines.settings import EngineSettings
from rendering.errors import LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.limits import Limits

liquid = get_engine("liquid")


def test_a_huge_range_loop_stops_at_the_iteration_limit_at_once():
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="loop iteration limit"):
        liquid.render("{% for i in (1..100000000) %}{% endfor %}", {})
    assert time.monotonic() - started < 3


def test_nested_loops_count_together():
    source = (
        "{% for i in (1..1000) %}{% for j in (1..1000) %}{% for k in (1..1000) %}"
        "{% endfor %}{% endfor %}{% endfor %}"
    )
    with pytest.raises(LimitExceeded, match="loop iteration limit"):
        liquid.render(source, {})


def test_a_slow_loop_meets_the_time_limit():
    rows = list(range(900_000))
    source = "{% for r in rows %}{{ r | times: 3 | plus: 1 | modulo: 7 }}{% endfor %}"
    with pytest.raises(LimitExceeded, match="longer than 100 ms"):
        liquid.render(source, {"rows": rows}, Limits(template_timeout_ms=100))


def test_huge_output_stops_at_the_html_limit():
    source = "{% for i in (1..900000) %}" + "x" * 60 + "{% endfor %}"
    with pytest.raises(LimitExceeded, match="rendered HTML is larger than the 1 MB"):
        liquid.render(source, {}, Limits(max_html_bytes=1 << 20))


def test_doubling_a_string_stops_at_the_namespace_limit():
    source = (
        "{% assign s = 'x' %}{% for i in (1..60) %}{% assign s = s | append: s %}{% endfor %}"
        "{{ s | size }}"
    )
    with pytest.raises(LimitExceeded, match="namespace limit"):
        liquid.render(source, {}, Limits(max_html_bytes=1 << 20))


def test_deep_block_nesting_is_refused_at_check():
    source = "{% if true %}" * 200 + "x" + "{% endif %}" * 200
    with pytest.raises(TemplateSyntaxError, match="line 1"):
        liquid.check(source)


@pytest.mark.parametrize("tag", ["include", "render"])
def test_include_and_render_without_partials_load_nothing(tag):
    source = "<p>\n{% " + tag + " 'self' %}"
    with pytest.raises(TemplateRuntimeError, match=r"line 2: no template to include") as failed:
        liquid.render(source, {})
    assert failed.value.line == 2


@pytest.mark.parametrize(
    "path",
    [
        "x.__class__",
        "x.__class__.__mro__",
        "x.__init__.__globals__",
        "x.items",
        "x.keys",
        "rows.pop",
        "s.upper",
        "s.__len__",
    ],
)
def test_attribute_walking_reaches_only_keys_of_the_data(path):
    data = {"x": {"a": 1}, "rows": [1, 2], "s": "text"}
    assert liquid.render("{{ " + path + " }}", data) == ""
    strict = EngineSettings(strict_undefined=True)
    with pytest.raises(TemplateRuntimeError, match="is undefined"):
        LiquidEngine().render("{{ " + path + " }}", data, Limits(), settings=strict)
    assert data == {"x": {"a": 1}, "rows": [1, 2], "s": "text"}


def test_data_values_are_escaped_and_a_value_cannot_become_code():
    data = {"v": "<script>{{ 7 | times: 6 }}{% raw %}</script>"}
    # Shopify's default: not escaped, but never evaluated either.
    assert liquid.render("{{ v }}", data) == data["v"]
    settings = EngineSettings(autoescape=True)
    html = LiquidEngine().render("{{ v }}|{{ v | upcase }}", data, Limits(), settings=settings)
    assert html == (
        "&lt;script&gt;{{ 7 | times: 6 }}{% raw %}&lt;/script&gt;|"
        "&lt;SCRIPT&gt;{{ 7 | TIMES: 6 }}{% RAW %}&lt;/SCRIPT&gt;"
    )


def test_a_render_past_its_memory_ceiling_fails_and_this_process_survives():
    # One filter call builds 128 MB from 1 MB: no limit but the memory ceiling sees it.
    data = {"s": "x" * (1 << 20)}
    source = "{{ s | replace: 'x', '" + "y" * 128 + "' | size }}"
    with pytest.raises(LimitExceeded, match="16 MB of memory"):
        liquid.render(source, data, Limits(template_max_memory_mb=16))
    assert liquid.render("{{ 6 | times: 7 }}", {}) == "42"
