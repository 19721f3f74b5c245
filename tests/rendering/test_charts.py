"""Vega-Lite charts drawn server-side, cached by content, never fetching anything."""

from __future__ import annotations

import io
import json
import time
from urllib.parse import quote

import pytest
from pypdf import PdfReader

from rendering import charts
from rendering.charts import ChartError, chart_image, chart_links, charts_embed
from rendering.errors import LimitExceeded
from rendering.limits import Limits
from reports.limits import limits_from_settings
from tests.conftest import pdf_text
from tests.rendering.conftest import render

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
    original = charts.vl_convert.vegalite_to_svg

    def counting(spec, **kwargs):
        calls.append(1)
        return original(spec, **kwargs)

    monkeypatch.setattr(charts.vl_convert, "vegalite_to_svg", counting)
    spec = BAR | {"title": f"cache-{time.time()}"}
    html, warnings = charts_embed(
        _placeholder(spec) * 3 + _placeholder(dict(reversed(spec.items()))),
        limits=limits_from_settings(),
    )
    assert warnings == []
    assert len(calls) == 1  # key order does not matter: the hash is of canonical JSON
    assert html.count("data:image/png;base64,") == 1  # written once, shown four times
    assert html.count('data-chart-image="1"') == 5  # its rule and its four uses


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


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        (BAR | {"width": 100_000}, "the limit is 2000 px a side"),
        (BAR | {"height": 50_000}, "the limit is 2000 px a side"),
        (BAR | {"width": {"step": 5000}}, "the limit is 2000 px a side"),
        (BAR | {"data": {"values": [{"a": n, "b": n} for n in range(10_001)]}}, "10001 data"),
        (BAR | {"data": {"sequence": {"start": 0, "stop": 1e9, "as": "b"}}}, "1000000000 data"),
    ],
)
def test_oversized_charts_are_refused_before_they_are_rasterised(spec, reason):
    started = time.monotonic()
    with pytest.raises(ChartError, match=reason):
        chart_image(spec | {"title": f"big-{time.time()}"})
    assert time.monotonic() - started < 5


def test_one_chart_repeated_thousands_of_times_is_refused_before_it_is_expanded():
    html = _placeholder(BAR) * 5000  # ~1.3 MB of placeholders, 5,000 images to draw
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="each use of a chart counts"):
        charts_embed(html, limits=Limits(max_html_bytes=2_000_000))
    assert time.monotonic() - started < 5
    # What is refused is the drawing, not the document: it stays small with room for it.
    embedded, _ = charts_embed(html, limits=Limits(max_html_bytes=1_000_000_000))
    assert len(embedded) < len(html) + len(chart_image(BAR)[0]) + 1000
    assert embedded.count("data:image/png;base64,") == 1


def test_the_document_grows_by_tags_not_by_images_per_use():
    big = BAR | {"width": 900, "height": 600, "title": "big"}  # a larger image
    sizes = {}
    for spec in (BAR, big):
        for uses in (250, 500):
            html, _ = charts_embed(
                "<p>x</p>" + _placeholder(spec) * uses, limits=Limits(max_html_bytes=10**9)
            )
            sizes[(spec["width"], uses)] = len(html)
    image = len(chart_image(big)[0])
    per_use = (sizes[(900, 500)] - sizes[(900, 250)]) / 250
    assert per_use < 600 < image / 10  # a placeholder's worth of tag, not the image
    # Both charts' documents grow alike per use, whatever their image sizes.
    small_per_use = (sizes[(200, 500)] - sizes[(200, 250)]) / 250
    assert abs(per_use - small_per_use) < 100


def test_chart_links_take_the_images_out_of_the_html_for_xhtml2pdf():
    html, _ = charts_embed(_placeholder(BAR) * 3, limits=limits_from_settings())
    linked, images = chart_links(html)
    assert list(images) == ["chart-image:1"]
    assert images["chart-image:1"].startswith("data:image/png;base64,")
    assert "data:image/png" not in linked
    assert linked.count('src="chart-image:1" width=') == 3
    # A template's own look-alike rule is not taken for a chart: only data: images.
    forged = (
        '<style data-chart-images>[data-chart-image="1"] { background: url("file:///etc/passwd")'
    )
    assert chart_links(forged + "</style>") == (forged + "</style>", {})


def test_the_chart_cache_is_bounded_in_bytes():
    for n in range(6):
        chart_image(
            BAR | {"title": f"cache-bytes-{n}-{time.time()}"},
            limits=Limits(chart_cache_bytes=120_000),
        )
    assert 0 < charts._cache_bytes <= 120_000
    assert charts._cache_bytes == sum(len(uri) for uri, _, _ in charts._cache.values())


def _image_xobjects(content: bytes) -> set[int]:
    """The distinct image XObjects the pages draw (by object number)."""
    found = set()
    for page in PdfReader(io.BytesIO(content)).pages:
        resources = page.get("/Resources")
        objects = resources.get_object().get("/XObject") if resources else None
        for ref in (objects.get_object() if objects else {}).values():
            if ref.get_object().get("/Subtype") == "/Image":
                found.add(ref.idnum)
    return found


@pytest.mark.heavy
def test_a_chart_repeated_100_times_stands_once_in_the_html_and_the_pdf(renderer):
    # 100 uses, 17 pages: a copy per use would show as 100 images or as 100 times the
    # bytes just as 500 did, and WeasyPrint's 500 took 48 s of a loaded CI run.
    cell = f"<div>{_placeholder(BAR)}</div>"
    documents = {
        uses: render(renderer, f"<h1>Charts</h1>{cell * uses}", engine="raw") for uses in (1, 100)
    }
    many = documents[100]
    pages, text = pdf_text(many.content)
    assert pages > 10
    assert "Charts" in text
    assert many.warnings == []
    # The raster chart (xhtml2pdf) is one image XObject however often it is drawn; the
    # vector renderers draw the SVG as paths (no image XObject). Chromium's PDF barely
    # grows per use; WeasyPrint draws an SVG anew at each use (a form of ~3 KB each).
    images = _image_xobjects(many.content)
    assert len(images) == (1 if renderer == "xhtml2pdf" else 0)
    grown = (len(many.content) - len(documents[1].content)) / 99
    assert grown < {"xhtml2pdf": 500, "chromium": 1_000, "weasyprint": 8_000}[renderer]
