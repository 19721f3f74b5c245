"""Template previews: the first page rendered with given or sample data, as a PNG."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from rendering.options import PdfOptions
from rendering.raster import pdf_page_png
from rendering.renderers import DEFAULT_RENDERER
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from reports.validation import DataValidationError, template_data_check

# Most pages one preview lays out and returns (the studio's scroll, the visual diff).
PREVIEW_MAX_PAGES = 5


def preview_data_check(*, data: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """The same checks a submit makes, so a preview cannot reach further (cheap and linear:
    the web process runs them before sending the preview to a worker)."""
    if data is None:
        raise DataValidationError(
            'No data to preview with: this template has no sample data, so send {"data": {…}}.'
        )
    limits = limits_from_settings(max_render_seconds=settings.PDF_PREVIEW_MAX_SECONDS)
    return template_data_check(schema=schema, data=data, limits=limits)


def template_preview_png(
    *,
    engine: str,
    source: str,
    css: str,
    data: Any,  # None: the caller sent none and the template has no sample data
    schema: dict[str, Any],
    options: PdfOptions,
    width: int = 600,
    renderer: str = DEFAULT_RENDERER,
    helpers: str = "",
) -> bytes:
    """The first page of a template rendered with `data`, as PNG, under the tighter
    PDF_PREVIEW_MAX_SECONDS budget and laid out only as far as that page, so an editor's
    preview of a long report stays quick. Runs on a preview worker (reports.preview_queue)."""
    return template_preview_pngs(
        engine=engine,
        source=source,
        css=css,
        data=data,
        schema=schema,
        options=options,
        width=width,
        renderer=renderer,
        helpers=helpers,
        pages=1,
    )[0]


def template_preview_pngs(
    *,
    engine: str,
    source: str,
    css: str,
    data: Any,
    schema: dict[str, Any],
    options: PdfOptions,
    width: int = 600,
    renderer: str = DEFAULT_RENDERER,
    helpers: str = "",
    pages: int = 1,
    partials: dict[str, str] | None = None,
) -> list[bytes]:
    """The first `pages` pages (all of a shorter document) as PNGs, laid out only that far:
    the studio's scrollable preview and the visual diff. `partials`: the templates it
    includes, slug -> source (reports.partials)."""
    limits = limits_from_settings(max_render_seconds=settings.PDF_PREVIEW_MAX_SECONDS)
    checked = preview_data_check(data=data, schema=schema)
    rendered = report_render(
        source=TemplateSource(
            engine=engine,
            html=source,
            css=css,
            renderer=renderer,
            helpers=helpers,
            partials=partials or {},
        ),
        data=checked,
        options=options,
        limits=limits,
        max_pages=pages,
    )
    return [
        pdf_page_png(
            rendered.content, page=page, width=width, max_pixels=settings.PDF_PREVIEW_MAX_PIXELS
        )
        for page in range(min(pages, rendered.page_count))
    ]
