"""The default renderer: xhtml2pdf on ReportLab (its `<pdf:…>` tags and `@frame`s)."""

from __future__ import annotations

import io

from pypdf import PdfReader
from reportlab import rl_config
from xhtml2pdf import pisa
from xhtml2pdf.config.resources import RenderLimitError

import rendering.renderers.xhtml2pdf_speedups  # noqa: F401  (patches ReportLab on import)
from rendering.chunked import ManyRender, plan_render
from rendering.chunking import TocEntry, document_plan
from rendering.errors import LimitExceeded, RenderError
from rendering.limits import DEFAULT_LIMITS, Limits
from rendering.merging import ChunkPdf
from rendering.renderers import xhtml2pdf_hooks
from rendering.renderers.base import PageCallback, RenderedPdf
from rendering.resources import collect_warnings, resource_policy

# Images and fonts go into the PDF as binary (Flate) streams: ASCII85 makes them 25 %
# larger and cost ~6 % of a chart-heavy render (pure Python without rl_accel).
rl_config.useA85 = 0
# Below this many tags a document lays out whole: the one-page invoice (~130 tags) was 1.09x
# slower through stamp and merge, the 9-page sales report (~2,000) 0.5x faster.
ONE_PASS_MIN_TAGS = 500


def _page_guard(limit: int, on_page: PageCallback | None) -> PageCallback:
    def guard(page: int) -> None:
        if page > limit:
            raise LimitExceeded(f"The report has more than {limit} pages; the limit is {limit}.")
        if on_page is not None:
            on_page(page)

    return guard


def html_to_pdf(
    html: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    on_page: PageCallback | None = None,
    meta: dict[str, str] | None = None,
    max_pages: int | None = None,
) -> RenderedPdf:
    """Lay out a full HTML document as PDF under the locked-down resource policy."""
    if len(html.encode("utf-8")) > limits.max_html_bytes:
        raise LimitExceeded(
            f"The rendered HTML is larger than the {limits.max_html_bytes} bytes allowed."
        )
    xhtml2pdf_hooks.install()
    out = io.BytesIO()
    with (
        collect_warnings() as warnings,
        xhtml2pdf_hooks.on_page(_page_guard(limits.max_pages, on_page)),
        xhtml2pdf_hooks.page_cap(max_pages),
    ):
        try:
            status = pisa.pisaDocument(
                html,
                dest=out,
                encoding="utf-8",
                resource_policy=resource_policy(limits),
                context_meta={k: v for k, v in (meta or {}).items() if v},
            )
        except LimitExceeded as exc:
            # ReportLab re-raises errors from its page hooks with its own notes prepended.
            raise LimitExceeded(exc.args[0].split("args=() ")[-1].strip()) from None
        except RenderLimitError as exc:
            raise LimitExceeded(f"The document is too large to lay out: {exc}") from None
        except RecursionError:
            raise LimitExceeded("The document nests elements too deeply to lay out.") from None
    if status.err:
        raise RenderError("The HTML could not be laid out as a PDF (xhtml2pdf reported errors).")
    content = out.getvalue()
    page_count = len(PdfReader(io.BytesIO(content)).pages)
    if page_count > limits.max_pages:
        raise LimitExceeded(f"The report has {page_count} pages; the limit is {limits.max_pages}.")
    return RenderedPdf(content=content, page_count=page_count, warnings=list(warnings))


def chunk_render(
    html: str,
    entries: list[TocEntry] | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
    meta: dict[str, str] | None = None,
    on_page: PageCallback | None = None,
) -> ChunkPdf:
    """Lay out one chunk document; `entries` fill its table of contents in one pass."""
    with xhtml2pdf_hooks.toc_collect() as notified, xhtml2pdf_hooks.toc_seed(entries):
        rendered = html_to_pdf(html, limits=limits, on_page=on_page, meta=meta)
    return ChunkPdf(
        content=rendered.content,
        page_count=rendered.page_count,
        toc_entries=list(notified),
        warnings=rendered.warnings,
    )


def document_render(
    document: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    chunks: int = 1,
    render_many: ManyRender | None = None,
    on_page: PageCallback | None = None,
    meta: dict[str, str] | None = None,
    max_pages: int | None = None,
) -> RenderedPdf:
    """Lay a full document out with one pass over each page. Page numbers, page counts
    and a table of contents would need xhtml2pdf's second pass over the whole document,
    so the body is laid out alone (in up to `chunks` pieces; `render_many` may spread
    them over workers), the contents last with the entries the body produced, and the
    numbered header/footer stamped on the merged pages. Previews (`max_pages`), short
    documents and those that need the whole layout at once (page templates, per-page
    frames) render whole."""
    plan = None
    if max_pages is None and (chunks > 1 or document.count("<") >= ONE_PASS_MIN_TAGS):
        plan = document_plan(document)
    if plan is None or (chunks <= 1 and not plan.numbered and plan.toc_section is None):
        return html_to_pdf(document, limits=limits, on_page=on_page, meta=meta, max_pages=max_pages)
    done = 0

    def render(html: str, entries: list[TocEntry] | None) -> ChunkPdf:
        nonlocal done
        offset = done
        progress = None if on_page is None else (lambda page: on_page(offset + page))
        part = chunk_render(html, entries, limits=limits, meta=meta, on_page=progress)
        done += part.page_count
        return part

    content, page_count, warnings = plan_render(
        plan,
        chunks=chunks,
        render=render,
        render_many=render_many,
        stamp_render=lambda html: html_to_pdf(html, limits=limits, meta=meta).content,
    )
    if page_count > limits.max_pages:
        raise LimitExceeded(f"The report has {page_count} pages; the limit is {limits.max_pages}.")
    return RenderedPdf(content=content, page_count=page_count, warnings=warnings)


class Xhtml2PdfRenderer:
    name = "xhtml2pdf"
    render = staticmethod(document_render)
