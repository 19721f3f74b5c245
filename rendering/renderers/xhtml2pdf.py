"""The default renderer: xhtml2pdf on ReportLab (its `<pdf:…>` tags and `@frame`s)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from pypdf import PdfReader
from reportlab import rl_config
from reportlab.platypus.doctemplate import LayoutError
from xhtml2pdf import pisa
from xhtml2pdf.config.resources import RenderLimitError

import rendering.renderers.xhtml2pdf_speedups  # noqa: F401  (patches ReportLab on import)
from rendering.charts import chart_links
from rendering.chunk_layout import ManyRender, plan_render
from rendering.chunking import ChunkPlan, TocEntry, document_plan
from rendering.deadline import DeadlineExceeded, deadline
from rendering.errors import (
    LayoutFailed,
    LimitExceeded,
    RenderError,
    html_size_check,
    page_count_check,
)
from rendering.fetch import public_message
from rendering.layout import build_document
from rendering.limits import DEFAULT_LIMITS, Limits
from rendering.merging import ChunkPdf
from rendering.options import PdfOptions
from rendering.renderers import xhtml2pdf_hooks
from rendering.renderers.base import LayoutJob, PageCallback, RenderedPdf
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
    images: Mapping[str, str] | None = None,
) -> RenderedPdf:
    """Lay out a full HTML document as PDF under the locked-down resource policy.
    `images` maps the document's `chart-image:N` links to their data URIs."""
    html_size_check(html, limits.max_html_bytes)
    xhtml2pdf_hooks.install()
    out = io.BytesIO()
    with (
        collect_warnings() as warnings,
        xhtml2pdf_hooks.on_page(_page_guard(limits.max_pages, on_page)),
        xhtml2pdf_hooks.page_cap(max_pages),
    ):
        try:
            # xhtml2pdf checks its own time limit only between its stages; html5lib's parse
            # of a large document is one stage (a 30,000-row table held a "1 s" render for
            # 9 s). The deadline interrupts it at its next bytecode, as WeasyPrint's layout.
            with deadline(limits.max_render_seconds):
                status = pisa.pisaDocument(
                    html,
                    dest=out,
                    encoding="utf-8",
                    resource_policy=resource_policy(limits),
                    context_meta={k: v for k, v in (meta or {}).items() if v},
                    # The data URI of a shared chart for each of its uses: the image data is
                    # decoded per use but stands once in the HTML and, by its digest, once in
                    # the PDF. The policy still checks what the callback returns.
                    link_callback=lambda uri, _base: (images or {}).get(uri),
                )
        except LimitExceeded as exc:
            # ReportLab re-raises errors from its page hooks with its own notes prepended.
            raise LimitExceeded(exc.args[0].split("args=() ")[-1].strip()) from None
        except RenderLimitError as exc:
            raise LimitExceeded(f"The document is too large to lay out: {exc}") from None
        except DeadlineExceeded:
            # Worded as xhtml2pdf's own check between its stages says it.
            raise LimitExceeded(
                "The document is too large to lay out: the render took longer than the "
                f"{limits.max_render_seconds:g} seconds it may take (PDF_MAX_RENDER_SECONDS)."
            ) from None
        except RecursionError:
            raise LimitExceeded("The document nests elements too deeply to lay out.") from None
        except LayoutError as exc:
            raise _layout_failed(exc) from None
    if status.err:
        raise RenderError("The HTML could not be laid out as a PDF (xhtml2pdf reported errors).")
    content = out.getvalue()
    page_count = len(PdfReader(io.BytesIO(content)).pages)
    page_count_check(page_count, limits.max_pages)
    # Characters no font has are named once for every renderer (rendering.glyphs), not
    # one message a character with a fragment of the template.
    kept = [_explained(w) for w in warnings if not w.startswith(_NO_GLYPH)]
    return RenderedPdf(content=content, page_count=page_count, warnings=kept)


_NO_GLYPH = "No font this document has can draw"
_FLOWABLE = re.compile(r"Flowable <(\w+)")
_FLOWABLE_NAMES = {
    "Table": "a table row",
    "PmlTable": "a table row",
    "PmlImage": "an image",
    "PmlParagraph": "a paragraph",
    "Paragraph": "a paragraph",
    "PmlKeepInFrame": "a block",
}


def _layout_failed(exc: LayoutError) -> LayoutFailed:
    """ReportLab's LayoutError as a sentence: what did not fit, and what to do about it."""
    found = _FLOWABLE.search(str(exc))
    thing = _FLOWABLE_NAMES.get(found.group(1), "a block") if found else "a block"
    return LayoutFailed(
        f"xhtml2pdf could not place {thing} on any page: it is taller (or wider) than the "
        "page's frame and cannot be split. Let it break across pages (avoid fixed heights "
        "and tables nested in tables), or use the weasyprint or chromium renderer, which "
        "split such content across pages."
    )


def _explained(warning: str) -> str:
    """xhtml2pdf's warning, without server paths, saying which renderer would do better."""
    warning = public_message(warning)
    if "does not implement" in warning or "Unsupported pseudo page" in warning:
        return f"{warning} The weasyprint and chromium renderers support these."
    return warning


def chunk_render(
    html: str,
    entries: list[TocEntry] | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
    meta: dict[str, str] | None = None,
    on_page: PageCallback | None = None,
    images: Mapping[str, str] | None = None,
) -> ChunkPdf:
    """Lay out one chunk document; `entries` fill its table of contents in one pass."""
    with xhtml2pdf_hooks.toc_collect() as notified, xhtml2pdf_hooks.toc_seed(entries):
        rendered = html_to_pdf(html, limits=limits, on_page=on_page, meta=meta, images=images)
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
    images: Mapping[str, str] | None = None,
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
        return html_to_pdf(
            document, limits=limits, on_page=on_page, meta=meta, max_pages=max_pages, images=images
        )
    done = 0

    def render(html: str, entries: list[TocEntry] | None) -> ChunkPdf:
        nonlocal done
        offset = done
        progress = None if on_page is None else (lambda page: on_page(offset + page))
        part = chunk_render(
            html, entries, limits=limits, meta=meta, on_page=progress, images=images
        )
        done += part.page_count
        return part

    content, page_count, warnings = plan_render(
        plan,
        chunks=chunks,
        render=render,
        render_many=render_many,
        stamp_render=lambda html: html_to_pdf(html, limits=limits, meta=meta).content,
    )
    page_count_check(page_count, limits.max_pages)
    return RenderedPdf(content=content, page_count=page_count, warnings=warnings)


class Xhtml2PdfRenderer:
    name = "xhtml2pdf"

    def render(self, job: LayoutJob) -> RenderedPdf:
        # xhtml2pdf paints no backgrounds on images: shared charts become links instead.
        body_html, images = chart_links(job.body_html)
        return document_render(
            build_document(body_html=body_html, css=job.css, options=job.options),
            images=images,
            limits=job.limits,
            on_page=job.on_page,
            meta=_meta(job.options),
            max_pages=job.max_pages,
        )


def _meta(options: PdfOptions) -> dict[str, str]:
    return {"title": options.title, "author": options.author, "subject": options.subject}


class Xhtml2PdfChunker:
    """Chunked layout on several workers (`base.Chunker`): the body chunks at once, then
    the contents with their entries, the page numbers stamped and all merged."""

    def plan(self, *, body_html: str, css: str, options: PdfOptions, chunks: int) -> str | None:
        body_html, images = chart_links(body_html)
        document = build_document(body_html=body_html, css=css, options=options)
        plan = document_plan(document)
        if plan is None or len(plan.body_runs(chunks)) < 2:
            return None
        return json.dumps(
            {"plan": plan.to_dict(), "meta": _meta(options), "chunks": chunks, "images": images}
        )

    def count(self, plan: str) -> int:
        return len(_Loaded.of(plan).runs())

    def render_chunk(self, plan: str, index: int, *, limits: Limits) -> ChunkPdf:
        loaded = _Loaded.of(plan)
        first, last = loaded.runs()[index]
        return chunk_render(
            loaded.plan.chunk_html(first, last),
            limits=limits,
            meta=loaded.meta,
            images=loaded.images,
        )

    def merge(self, plan: str, parts: list[ChunkPdf], *, limits: Limits) -> RenderedPdf:
        loaded = _Loaded.of(plan)
        meta, images = loaded.meta, loaded.images
        content, page_count, warnings = plan_render(
            loaded.plan,
            chunks=loaded.chunks,
            render=lambda html, entries: chunk_render(
                html, entries, limits=limits, meta=meta, images=images
            ),
            render_many=lambda documents: parts,
            stamp_render=lambda html: html_to_pdf(html, limits=limits, meta=meta).content,
        )
        page_count_check(page_count, limits.max_pages)
        return RenderedPdf(content=content, page_count=page_count, warnings=warnings)


@dataclass(frozen=True)
class _Loaded:
    """A chunk plan read back: the cut document, its metadata, the number of chunks and
    the shared chart images its `chart-image:N` links resolve to."""

    plan: ChunkPlan
    meta: dict[str, str]
    chunks: int
    images: dict[str, str]

    @classmethod
    def of(cls, plan: str) -> _Loaded:
        fields = json.loads(plan)
        return cls(
            plan=ChunkPlan.from_dict(fields["plan"]),
            meta=fields["meta"],
            chunks=int(fields["chunks"]),
            images=fields.get("images", {}),
        )

    def runs(self) -> list[tuple[int, int]]:
        return self.plan.body_runs(self.chunks)
