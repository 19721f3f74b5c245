"""Vega-Lite charts drawn server-side, cached by content, never fetching anything."""

from __future__ import annotations

import json
import time
from urllib.parse import quote

import pytest

from rendering import charts
from rendering.charts import ChartError, chart_image, charts_embed
from rendering.errors import LimitExceeded
from reports.limits import limits_from_settings

BAR = {
    "data": {"values": [{"a": "A", "b": 28}, {"a": "B", "b": 55}]},
    "mark": "bar",
    "encoding": {
        "x": {"field": "a", "type": "nominal"},
        "y": {"field": "b", "type": "quantitative"},
    },
    "width": 200,
    "height": 100,
}


def _placeholder(spec: dict) -> str:
    return f'<img class="chart" src="vega-lite:{quote(json.dumps(spec), safe="")}">'


def test_a_spec_becomes_a_sized_png_data_uri():
    uri, width, height = chart_image(BAR)
    assert uri.startswith("data:image/png;base64,")
    assert 200 < width < 300  # the 200 px plot plus its axes
    assert height < width


def test_identical_specs_are_rendered_once(monkeypatch):
    calls = []
    original = charts.vl_convert.vegalite_to_png

    def counting(spec, **kwargs):
        calls.append(1)
        return original(spec, **kwargs)

    monkeypatch.setattr(charts.vl_convert, "vegalite_to_png", counting)
    spec = BAR | {"title": f"cache-{time.time()}"}
    html, warnings = charts_embed(
        _placeholder(spec) * 3 + _placeholder(dict(reversed(spec.items()))),
        limits=limits_from_settings(),
    )
    assert warnings == []
    assert len(calls) == 1  # key order does not matter: the hash is of canonical JSON
    assert html.count("data:image/png;base64,") == 4


def test_specs_with_urls_are_refused_without_fetching():
    with pytest.raises(ChartError, match="inline"):
        chart_image({"data": {"url": "http://169.254.169.254/latest"}, "mark": "bar"})
    with pytest.raises(ChartError, match="inline"):
        chart_image({"data": {"url": "file:///etc/passwd"}, "mark": "bar"})


def test_a_bad_chart_is_dropped_with_a_warning_and_the_rest_still_renders():
    html, warnings = charts_embed(
        '<img src="vega-lite:%7Bnot-json">' + _placeholder({"mark": 42}) + _placeholder(BAR),
        limits=limits_from_settings(),
    )
    assert len(warnings) == 2
    assert "not valid JSON" in warnings[0]
    assert html.count("data:image/gif") == 2
    assert html.count("data:image/png") == 1


def test_too_many_distinct_charts_is_a_limit(settings):
    settings.PDF_MAX_CHARTS = 2
    specs = [BAR | {"title": str(n)} for n in range(3)]
    with pytest.raises(LimitExceeded, match="3 distinct charts; the limit is 2"):
        charts_embed("".join(_placeholder(s) for s in specs), limits=limits_from_settings())


def test_html_without_charts_is_untouched():
    assert charts_embed("<p>no charts</p>", limits=limits_from_settings()) == (
        "<p>no charts</p>",
        [],
    )
