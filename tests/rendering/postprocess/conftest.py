"""Real renders for the document checks: WeasyPrint (and xhtml2pdf) PDFs, read back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings

from rendering.limits import Limits
from rendering.options import parse_options
from rendering.renderers.base import RenderedPdf
from rendering.report import TemplateSource, report_render

HTML = "<h1>Quarterly report</h1><p>Revenue grew by 12 %. Ünïcödé and € signs.</p>"


def sample_cii_xml() -> str:
    path = Path(settings.BASE_DIR) / "templates" / "samples" / "e-invoice.cii.xml"
    return path.read_text(encoding="utf-8")


def render(
    options: dict[str, Any], *, renderer: str = "weasyprint", html: str = HTML
) -> RenderedPdf:
    return report_render(
        source=TemplateSource(engine="raw", html=html, renderer=renderer),
        data={},
        options=parse_options(options),
        limits=Limits(),
    )
