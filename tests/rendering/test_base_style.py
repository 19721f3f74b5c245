"""Inline HTML gets browser-like default sizes on every renderer: the README's first
`<h1>Hello {{name}}</h1>` is a 24 pt heading over 12 pt text, read back from the PDF."""

from __future__ import annotations

import io
import math

import pytest
from pypdf import PdfReader

from jobs.worker.execution import _job_source
from rendering.base_style import with_base_style
from rendering.limits import Limits
from rendering.options import parse_options
from rendering.report import report_render
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db
INLINE = "<h1>Hello {{name}}</h1><p>Your report is ready.</p>"


def font_sizes(pdf: bytes) -> dict[str, float]:
    """Each text run's size as drawn: the Tf size scaled by the text and page matrices."""
    sizes: dict[str, float] = {}

    def visit(text, cm, tm, font, size):
        if text.strip():
            scale = math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1])
            sizes.setdefault(text.strip(), round(size * scale, 1))

    PdfReader(io.BytesIO(pdf)).pages[0].extract_text(visitor_text=visit)
    return sizes


@pytest.mark.parametrize("renderer", ["xhtml2pdf", "weasyprint", "chromium"])
def test_inline_html_has_browser_sizes_on_every_renderer(renderer):
    job = PdfJobFactory(template=None, html_template=INLINE, engine="handlebars", renderer=renderer)
    rendered = report_render(
        source=_job_source(job), data={"name": "Ada"}, options=parse_options({}), limits=Limits()
    )
    sizes = font_sizes(rendered.content)
    heading = next(size for text, size in sizes.items() if "Hello" in text)
    body = next(size for text, size in sizes.items() if "ready" in text)
    assert heading == pytest.approx(24, abs=0.6), sizes
    assert body == pytest.approx(12, abs=0.6), sizes


def test_the_templates_own_styles_still_win():
    html = with_base_style(
        "<style>h1 { font-size: 40pt }</style><h1>x</h1>", "h1 { font-size: 24pt }"
    )
    assert html.index("24pt") < html.index("40pt")
    document = "<!DOCTYPE html><html><head><title>t</title></head><body></body></html>"
    styled = with_base_style(document, "h1 {}")
    assert styled.startswith("<!DOCTYPE html><html><head><style>h1 {}</style><title>")
