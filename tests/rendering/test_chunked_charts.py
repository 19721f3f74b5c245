"""Charts in a chunked layout: one chart drawn once in the document (its rule or its link
stands where the first use was) still shows on every chunk's pages, on both renderers that
lay out in chunks."""

from __future__ import annotations

import io
import json
from urllib.parse import quote

import pytest
from pypdf import PdfReader

from rendering.charts import charts_embed
from rendering.limits import DEFAULT_LIMITS
from rendering.options import parse_options
from rendering.renderers import VECTOR_RENDERERS, get_chunker

SPEC = {
    "data": {"values": [{"a": "Apples", "b": 28}, {"a": "Pears", "b": 55}]},
    "mark": "bar",
    "encoding": {
        "x": {"field": "a", "type": "nominal"},
        "y": {"field": "b", "type": "quantitative"},
    },
    "width": 200,
    "height": 100,
}
CHART = f'<img class="chart" src="vega-lite:{quote(json.dumps(SPEC), safe="")}">'
CSS = '@page { @bottom-center { content: "Page " counter(page) " of " counter(pages); } }'
SECTIONS = 4


def _chunked_pdf(renderer: str) -> bytes:
    body = "".join(
        f"{'<pdf:nextpage />' if n else ''}<h1>Section {n}</h1>{CHART}" for n in range(SECTIONS)
    )
    body, warnings = charts_embed(body, limits=DEFAULT_LIMITS, vector=renderer in VECTOR_RENDERERS)
    assert warnings == []
    chunker = get_chunker(renderer)
    assert chunker is not None
    options = parse_options({"footer": "Page {page} of {pages}"})
    plan = chunker.plan(body_html=body, css=CSS, options=options, chunks=2)
    assert plan is not None, "the document should be cut into chunks"
    count = chunker.count(plan)
    assert count == 2
    parts = [chunker.render_chunk(plan, i, limits=DEFAULT_LIMITS) for i in range(count)]
    return chunker.merge(plan, parts, limits=DEFAULT_LIMITS).content


def test_xhtml2pdf_chunks_each_draw_the_shared_chart_image():
    reader = PdfReader(io.BytesIO(_chunked_pdf("xhtml2pdf")))
    assert len(reader.pages) == SECTIONS
    for page in reader.pages:
        xobjects = page["/Resources"].get("/XObject", {})
        images = [name for name in xobjects if xobjects[name].get("/Subtype") == "/Image"]
        assert images, f"no chart image on a page: {page.extract_text()!r}"


@pytest.mark.parametrize("renderer", ["weasyprint"])
def test_vector_chunks_each_draw_the_shared_chart(renderer):
    reader = PdfReader(io.BytesIO(_chunked_pdf(renderer)))
    assert len(reader.pages) == SECTIONS
    for number, page in enumerate(reader.pages):
        text = page.extract_text()
        # The chart's axis labels are SVG text: drawn only where the chart is.
        assert f"Section {number}" in text
        assert "Apples" in text, text
        assert "Pears" in text, text
