"""The entry point: (template source, data, options, limits) -> PDF, a pure function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rendering.charts import charts_embed
from rendering.engines import get_engine
from rendering.layout import build_document
from rendering.limits import Limits
from rendering.options import PdfOptions
from rendering.renderers import DEFAULT_RENDERER, get_renderer
from rendering.renderers.base import PageCallback, RenderedPdf
from rendering.watermark import watermark_apply

StageCallback = Callable[[str, int], None]


@dataclass(frozen=True)
class TemplateSource:
    """What renders: the engine that runs the template, its source and extra CSS."""

    engine: str
    html: str
    css: str = ""
    renderer: str = DEFAULT_RENDERER


def report_render(
    *,
    source: TemplateSource,
    data: dict[str, Any],
    options: PdfOptions,
    limits: Limits,
    on_stage: StageCallback | None = None,
    on_page: PageCallback | None = None,
    max_pages: int | None = None,
) -> RenderedPdf:
    """Render template + data with the named engine, draw its charts, lay the HTML out as
    a PDF and stamp it. Stages: rendering_template, rendering_charts, laying_out (progress
    rising with the pages laid out), finishing. `on_page(n)` is called as page n starts;
    `max_pages` stops the layout after that many pages (a preview needs only the first)."""
    notify = on_stage or (lambda stage, progress: None)
    notify("rendering_template", 10)
    body = get_engine(source.engine).render(source.html, data, limits)
    notify("rendering_charts", 20)
    body, chart_warnings = charts_embed(
        body,
        limits=limits,
        on_chart=lambda done, total: notify("rendering_charts", 20 + 20 * done // total),
    )
    notify("laying_out", 40)

    def page_started(page: int) -> None:
        if page % 5 == 0:  # a progress event per page would flood the job's followers
            notify("laying_out", min(85, 40 + page // 2))
        if on_page is not None:
            on_page(page)

    meta = {"title": options.title, "author": options.author, "subject": options.subject}
    rendered = get_renderer(source.renderer).render(
        build_document(body_html=body, css=source.css, options=options),
        limits=limits,
        on_page=page_started,
        meta=meta,
        max_pages=max_pages,
    )
    notify("finishing", 88)
    content = watermark_apply(rendered.content, options.watermark) if options.watermark else None
    return RenderedPdf(
        content=content or rendered.content,
        page_count=rendered.page_count,
        warnings=chart_warnings + rendered.warnings,
    )
