"""A page of a rendered PDF as a PNG image, for template thumbnails and previews."""

from __future__ import annotations

import io
import json
from typing import Any

import pypdfium2 as pdfium
from django.conf import settings

from reports.errors import LimitExceeded, RenderError
from reports.options import PdfOptions
from reports.schemas import DataValidationError, data_depth, data_validate


def pdf_page_png(pdf: bytes, *, page: int = 0, width: int = 600) -> bytes:
    """Rasterise one page of a PDF to a PNG `width` pixels wide (aspect ratio kept)."""
    document = pdfium.PdfDocument(pdf)
    try:
        if not 0 <= page < len(document):
            raise RenderError(f"The PDF has no page {page + 1}.")
        pdf_page = document[page]
        scale = width / pdf_page.get_width()
        image = pdf_page.render(scale=scale).to_pil()
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        return out.getvalue()
    finally:
        document.close()


def template_preview_png(
    *,
    engine: str,
    source: str,
    css: str,
    data: Any,  # None: the caller sent none and the template has no sample data
    schema: dict[str, Any],
    options: PdfOptions,
    width: int = 600,
) -> bytes:
    """The first page of a template rendered with `data`, as PNG, under the tighter
    PDF_PREVIEW_MAX_SECONDS budget and laid out only as far as that page, so an editor's
    preview of a long report stays quick and never ties up a web worker."""
    from reports.rendering import report_render

    if data is None:
        raise DataValidationError(
            'No data to preview with: this template has no sample data, so send {"data": {…}}.'
        )
    if not isinstance(data, dict):
        raise DataValidationError("data must be a JSON object.")
    if len(json.dumps(data)) > settings.PDF_MAX_DATA_BYTES:
        raise LimitExceeded(f"data is larger than {settings.PDF_MAX_DATA_BYTES} bytes.")
    # The same nesting bound a submit enforces, so a preview cannot reach further.
    if data_depth(data, limit=settings.PDF_MAX_NESTING_DEPTH) > settings.PDF_MAX_NESTING_DEPTH:
        raise LimitExceeded(f"data nests deeper than {settings.PDF_MAX_NESTING_DEPTH} levels.")
    data_validate(schema=schema, data=data)
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
