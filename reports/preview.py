"""A page of a rendered PDF as a PNG image, for template thumbnails and previews."""

from __future__ import annotations

import io
import json
import math
from typing import Any

import pypdfium2 as pdfium
from django.conf import settings

from reports.errors import LimitExceeded, RenderError
from reports.options import PdfOptions
from reports.schemas import data_depth, data_validate


def pdf_page_png(pdf: bytes, *, page: int = 0, width: int = 600) -> bytes:
    """Rasterise one page of a PDF to a PNG `width` pixels wide (aspect ratio kept), or
    narrower if that would exceed PDF_PREVIEW_MAX_PIXELS: the page size comes from the
    template (`@page { size: 10mm 12500mm }`), and no page may ask for gigabytes."""
    document = pdfium.PdfDocument(pdf)
    try:
        if not 0 <= page < len(document):
            raise RenderError(f"The PDF has no page {page + 1}.")
        pdf_page = document[page]
        page_width, page_height = pdf_page.get_width(), pdf_page.get_height()
        scale = width / page_width
        most = settings.PDF_PREVIEW_MAX_PIXELS
        if page_width * page_height * scale * scale > most:
            scale = (most / (page_width * page_height)) ** 0.5
            while math.ceil(page_width * scale) * math.ceil(page_height * scale) > most:
                scale *= 0.99  # pdfium rounds each side up
        image = pdf_page.render(scale=scale).to_pil()
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        return out.getvalue()
    finally:
        document.close()


def preview_data_check(*, data: Any, schema: dict[str, Any]) -> None:
    """What a submit checks of data, so a preview cannot reach further (cheap and linear:
    the web process runs it before sending the preview to a worker)."""
    if not isinstance(data, dict):
        raise RenderError("data must be a JSON object.")
    if len(json.dumps(data)) > settings.PDF_MAX_DATA_BYTES:
        raise LimitExceeded(f"data is larger than {settings.PDF_MAX_DATA_BYTES} bytes.")
    if data_depth(data, limit=settings.PDF_MAX_NESTING_DEPTH) > settings.PDF_MAX_NESTING_DEPTH:
        raise LimitExceeded(f"data nests deeper than {settings.PDF_MAX_NESTING_DEPTH} levels.")
    data_validate(schema=schema, data=data)


def template_preview_png(
    *,
    engine: str,
    source: str,
    css: str,
    data: Any,
    schema: dict[str, Any],
    options: PdfOptions,
    width: int = 600,
) -> bytes:
    """The first page of a template rendered with `data`, as PNG, under the tighter
    PDF_PREVIEW_MAX_SECONDS budget and laid out only as far as that page, so an editor's
    preview of a long report stays quick and never ties up a web worker."""
    from reports.rendering import report_render

    preview_data_check(data=data, schema=schema)
    rendered = report_render(
        engine=engine,
        source=source,
        css=css,
        data=data,
        options=options,
        max_render_seconds=settings.PDF_PREVIEW_MAX_SECONDS,
        max_pages=1,
    )
    return pdf_page_png(rendered.content, page=0, width=width)
