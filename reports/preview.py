"""Template previews: the first page rendered with given or sample data, as a PNG."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from rendering.options import PdfOptions
from rendering.raster import pdf_page_png
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from reports.validation import DataValidationError, template_data_check


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
    if data is None:
        raise DataValidationError(
            'No data to preview with: this template has no sample data, so send {"data": {…}}.'
        )
    limits = limits_from_settings(max_render_seconds=settings.PDF_PREVIEW_MAX_SECONDS)
    # The same checks a submit makes, so a preview cannot reach further.
    checked = template_data_check(schema=schema, data=data, limits=limits)
    rendered = report_render(
        source=TemplateSource(engine=engine, html=source, css=css),
        data=checked,
        options=options,
        limits=limits,
        max_pages=1,
    )
    return pdf_page_png(rendered.content, page=0, width=width)
