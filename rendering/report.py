"""The entry point: (template source, data, options, limits) -> PDF, a pure function."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rendering.base_style import with_base_style
from rendering.charts import charts_embed
from rendering.engines import engine_render
from rendering.engines.docx import DOCX_ENGINE, docx_file, docx_fill
from rendering.errors import LimitExceeded
from rendering.forms import FORM_ENGINE, form_fill, form_pdf
from rendering.glyphs import html_text, missing_glyph_warning
from rendering.isolated import reap_exited
from rendering.limits import Limits
from rendering.long_words import unbreakable_word_warning
from rendering.office import OFFICE_ENGINE, office_convert, office_files, office_merge
from rendering.office_service import OfficeTimeout
from rendering.options import PdfOptions
from rendering.postprocess.finish import document_finish
from rendering.renderer_fit import renderer_fit_warnings
from rendering.renderers import DEFAULT_RENDERER, VECTOR_RENDERERS, get_renderer
from rendering.renderers.base import LayoutJob, PageCallback, RenderedPdf, document_info_apply
from rendering.watermark import watermark_apply

StageCallback = Callable[[str, int], None]


@dataclass(frozen=True)
class TemplateSource:
    """What renders: the engine that runs the template, its source and extra CSS."""

    engine: str
    html: str
    css: str = ""
    renderer: str = DEFAULT_RENDERER
    # JavaScript whose top-level functions become Handlebars helpers.
    helpers: str = ""
    # The renderers a stored template is made for; empty: any (rendering.renderer_fit).
    made_for: tuple[str, ...] = ()
    # Styles before all of the template's own (inline HTML: rendering.base_style).
    base_css: str = ""
    # The templates it may include, slug -> source (rendering.engines.partials); the
    # caller resolves them (the workspace's own, at the versions the job recorded).
    partials: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RenderInput:
    """What one render starts from: the template, the data, the page options, the limits
    and who hears of its stages (`on_stage(stage, progress)`)."""

    source: TemplateSource
    data: dict[str, Any]
    options: PdfOptions
    limits: Limits
    on_stage: StageCallback | None = None

    def notify(self, stage: str, progress: int) -> None:
        if self.on_stage is not None:
            self.on_stage(stage, progress)


@dataclass(frozen=True)
class PreparedDocument:
    """A report's body HTML (template run, charts drawn for its renderer) and its CSS,
    ready for a renderer to lay out, here or in chunks on several workers."""

    body_html: str
    css: str
    warnings: list[str]


def report_prepare(job: RenderInput) -> PreparedDocument:
    """Run the template and draw its charts (SVG for renderers that take it).
    Stages: rendering_template, rendering_charts."""
    source, options, limits, notify = job.source, job.options, job.limits, job.notify
    notify("rendering_template", 10)
    body = engine_render(
        source.engine,
        source.html,
        job.data,
        limits,
        helpers=source.helpers,
        settings=options.engine,
        partials=source.partials or None,
    )
    body = with_base_style(body, source.base_css)
    # Checked on what the template produced, the same for every renderer: each falls
    # back to the bundled fonts, so only characters none of them has stay undrawn. Before
    # the charts: they add only tags and a <style> of images, none of it text, and that
    # block is megabytes to scan for a large report.
    text = html_text(body)
    glyphs = missing_glyph_warning(text, options.header, options.footer, options.watermark)
    # The template's own <style> counts as much as its css field.
    long_word = unbreakable_word_warning(text, css=source.css + body, renderer=source.renderer)
    notify("rendering_charts", 20)
    body, chart_warnings = charts_embed(
        body,
        limits=limits,
        on_chart=lambda done, total: notify("rendering_charts", 20 + 20 * done // total),
        vector=source.renderer in VECTOR_RENDERERS,
    )
    fit = renderer_fit_warnings(
        html=source.html, css=source.css, renderer=source.renderer, made_for=source.made_for
    )
    warnings = fit + chart_warnings + [w for w in (glyphs, long_word) if w]
    return PreparedDocument(body_html=body, css=source.css, warnings=warnings)


def pdf_finish(rendered: RenderedPdf, *, options: PdfOptions, warnings: list[str]) -> RenderedPdf:
    """The laid-out PDF with the job's watermark, made into the document options.pdf asks
    for and checked (ComplianceFailed when a check fails), and every warning of the render."""
    content = watermark_apply(rendered.content, options.watermark) if options.watermark else None
    content = content or rendered.content
    compliance = None
    if options.pdf is not None:
        finished = document_finish(content, options.pdf)
        content, compliance = finished.content, finished.compliance
    return RenderedPdf(
        content=content,
        page_count=rendered.page_count,
        warnings=warnings + rendered.warnings,
        compliance=compliance,
    )


def report_layout(
    prepared: PreparedDocument,
    job: RenderInput,
    *,
    on_page: PageCallback | None = None,
    max_pages: int | None = None,
) -> RenderedPdf:
    """Lay a prepared document out in this process with the named renderer and stamp it.
    Stages: laying_out (progress rising with the pages laid out), finishing."""
    options, notify = job.options, job.notify
    notify("laying_out", 40)

    def page_started(page: int) -> None:
        if page % 5 == 0:  # a progress event per page would flood the job's followers
            notify("laying_out", min(85, 40 + page // 2))
        if on_page is not None:
            on_page(page)

    rendered = get_renderer(job.source.renderer).render(
        LayoutJob(
            body_html=prepared.body_html,
            css=prepared.css,
            options=options,
            limits=job.limits,
            on_page=page_started,
            max_pages=max_pages,
        )
    )
    notify("finishing", 88)
    return pdf_finish(rendered, options=options, warnings=prepared.warnings)


def form_render(job: RenderInput) -> RenderedPdf:
    """A pdf-form template (rendering.forms): its fields filled from the data, flattened
    when options.flatten, then finished like any laid-out PDF (watermark, options.pdf)."""
    options = job.options
    job.notify("rendering_template", 10)
    filled = form_fill(
        form_pdf(job.source.html),
        job.data,
        flatten=options.flatten,
        metadata={"title": options.title, "author": options.author, "subject": options.subject},
        limits=job.limits,
    )
    job.notify("finishing", 88)
    rendered = RenderedPdf(content=filled.content, page_count=filled.page_count)
    return pdf_finish(rendered, options=options, warnings=[])


def office_render(job: RenderInput) -> RenderedPdf:
    """An office conversion (rendering.office): each file converted by LibreOffice, in
    order, within the render time limit all together, merged, then finished like any
    laid-out PDF (watermark, options.pdf checked); it takes no data."""
    options, limits, notify = job.options, job.limits, job.notify
    files = office_files(job.source.html)
    pdfs = []
    deadline = time.monotonic() + limits.max_render_seconds  # for all the files together
    for number, (name, content) in enumerate(files):
        notify("converting", 10 + 75 * number // len(files))
        left = deadline - time.monotonic()
        if left <= 0:
            raise OfficeTimeout(limits.max_render_seconds)
        pdfs.append(_office_pdf(content, name, timeout=left, options=options, limits=limits))
    notify("finishing", 88)
    return _converted_finish(pdfs, options=options, limits=limits)


def _office_pdf(
    content: bytes, name: str, *, timeout: float, options: PdfOptions, limits: Limits
) -> bytes:
    """One file converted by the worker's LibreOffice with the job's options (page ranges,
    orientation, PDF/A or PDF/UA profile)."""
    return office_convert(
        content,
        name,
        timeout=timeout,
        page_ranges=options.page_ranges,
        landscape=options.orientation == "landscape",
        profile=options.pdf.profile if options.pdf is not None else "",
        limits=limits,
    )


def _converted_finish(pdfs: list[bytes], *, options: PdfOptions, limits: Limits) -> RenderedPdf:
    """What LibreOffice made, merged, bounded in pages, titled from the job's options and
    finished like any laid-out PDF (watermark, options.pdf checked)."""
    content, page_count = office_merge(pdfs)
    if page_count > limits.max_pages:
        raise LimitExceeded(f"The PDF has {page_count} pages; the limit is {limits.max_pages}.")
    rendered = RenderedPdf(content=document_info_apply(content, options), page_count=page_count)
    return pdf_finish(rendered, options=options, warnings=[])


def docx_render(job: RenderInput) -> RenderedPdf:
    """A docx template (rendering.engines.docx): its tags filled with the data in the
    sandbox, the filled document made a PDF by the worker's LibreOffice within the render
    time limit, then finished like any laid-out PDF (watermark, options.pdf)."""
    options, limits, notify = job.options, job.limits, job.notify
    notify("rendering_template", 10)
    filled = docx_fill(docx_file(job.source.html), job.data, limits)
    notify("converting", 40)
    content = _office_pdf(
        filled, "template.docx", timeout=limits.max_render_seconds, options=options, limits=limits
    )
    reap_exited()  # the fill's child, left to exit while LibreOffice converted its document
    notify("finishing", 88)
    return _converted_finish([content], options=options, limits=limits)


# The engines whose template is a file, not HTML to lay out, and what makes their PDF.
_FILE_RENDERS: dict[str, Callable[[RenderInput], RenderedPdf]] = {
    OFFICE_ENGINE: office_render,
    FORM_ENGINE: form_render,
    DOCX_ENGINE: docx_render,
}


def file_render(job: RenderInput) -> RenderedPdf | None:
    """The PDF of a template that is a file, not HTML to lay out: office files converted,
    a PDF form filled, a Word document filled and converted. None for the HTML engines."""
    render = _FILE_RENDERS.get(job.source.engine)
    return None if render is None else render(job)


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
    """Render template + data with the named engine, draw its charts (SVG for renderers
    that take it), lay the HTML out as a PDF with the named renderer and stamp it.
    Stages: rendering_template, rendering_charts, laying_out (progress
    rising with the pages laid out), finishing. `on_page(n)` is called as page n starts;
    `max_pages` stops the layout after that many pages (a preview needs only the first)."""
    get_renderer(source.renderer)  # an unknown renderer fails before the template runs
    job = RenderInput(source=source, data=data, options=options, limits=limits, on_stage=on_stage)
    if (rendered := file_render(job)) is not None:
        return rendered
    prepared = report_prepare(job)
    return report_layout(prepared, job, on_page=on_page, max_pages=max_pages)
