"""gotenberg#1077: a sample PDF must not carry an image once per use. The sales report's
charts, drawn as PNG by xhtml2pdf, counted as image XObjects by the hash of their decoded
bytes with pikepdf. (WeasyPrint draws the charts' SVG as vectors, so its samples hold no
image streams, which tests/bench/pdf_sizes.py counts; a logo on every page is one stream
on both renderers: tests/rendering/postprocess/test_steps.py.)"""

from __future__ import annotations

from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from reports.samples import sample_files
from tests.bench.pdf_sizes import image_streams


def test_the_sample_charts_are_each_stored_once():
    html, css, data = sample_files("sales-report")
    content = report_render(
        source=TemplateSource(engine="handlebars", html=html, css=css, renderer="xhtml2pdf"),
        data=data,
        options=parse_options({}),
        limits=limits_from_settings(),
    ).content
    streams, distinct = image_streams(content)
    assert streams >= 5  # the sample's five charts
    assert streams == distinct
