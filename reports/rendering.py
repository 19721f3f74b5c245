"""HTML to PDF with xhtml2pdf: a pure function of (template, data, options) -> PDF bytes."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape as html_escape
from pathlib import Path
from typing import Any

from django.conf import settings
from pypdf import PdfReader
from reportlab import rl_config
from xhtml2pdf import pisa
from xhtml2pdf.config.resources import RenderLimitError

import reports.layout_speedups  # noqa: F401  (patches ReportLab on import)
from reports.charts import charts_embed
from reports.chunked import ManyRender, plan_render
from reports.chunking import document_plan
from reports.engines import get_engine
from reports.errors import LimitExceeded, RenderError
from reports.fonts import fonts_css
from reports.layout_hooks import TocEntry, on_page, page_cap, toc_collect, toc_seed
from reports.merging import ChunkPdf
from reports.options import PdfOptions
from reports.resources import collect_warnings, resource_policy
from reports.watermark import watermark_apply

ASSETS_DIR = Path(__file__).with_name("assets")
# Images and fonts go into the PDF as binary (Flate) streams: ASCII85 makes them 25 %
# larger and cost ~10 % of a chart-heavy render (pure Python without rl_accel).
rl_config.useA85 = 0
StageCallback = Callable[[str, int], None]
# Below this many tags a document lays out whole: the one-page invoice (~130 tags) was 1.09x
# slower through stamp and merge, the 9-page sales report (~2,000) 0.5x faster.
ONE_PASS_MIN_TAGS = 500
PageCallback = Callable[[int], None]


@dataclass(frozen=True)
class RenderedPdf:
    content: bytes
    page_count: int
    warnings: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.content)


_HEAD_CLOSE = re.compile(r"</head\s*>", re.IGNORECASE)
_HTML_OPEN = re.compile(r"<html[^>]*>", re.IGNORECASE)
_PAGE_RULE = re.compile(r"@page\s*\{")
DEFAULT_MARGIN = "2cm"


def _into_page_rule(document: str, declarations: str) -> str | None:
    """Append declarations at the end of the document's first @page rule, so the job's
    options win while the template keeps its margins and frames; None if it has none."""
    match = _PAGE_RULE.search(document)
    if match is None:
        return None
    depth = 1
    for index in range(match.end(), len(document)):
        char = document[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return f"{document[:index]}; {declarations}\n{document[index:]}"
    return None


def _running_text(text: str) -> str:
    # Plain text from the options, escaped; {page} and {pages} become live counters.
    escaped = html_escape(text)
    return escaped.replace("{page}", "<pdf:pagenumber></pdf:pagenumber>").replace(
        "{pages}", "<pdf:pagecount></pdf:pagecount>"
    )


def _running_blocks(options: PdfOptions, margin: str) -> tuple[str, str]:
    """(frame rules, content divs) of the header and footer the options ask for."""
    sides = margin.split()
    left = sides[-1] if len(sides) == 4 else sides[-1 if len(sides) < 3 else 1]
    right = sides[1] if len(sides) > 1 else sides[0]
    frames, divs = [], []
    for name, text, edge in (
        ("header", options.header, "top"),
        ("footer", options.footer, "bottom"),
    ):
        if not text:
            continue
        frames.append(
            f"@frame rs_{name} {{ -pdf-frame-content: rs-{name}; {edge}: 0.7cm; height: 0.8cm; "
            f"margin-left: {left}; margin-right: {right}; }}"
        )
        divs.append(
            f'<div id="rs-{name}" class="rs-{name}" style="font-size: 8pt; color: #52606d; '
            f'text-align: center;">{_running_text(text)}</div>'
        )
    return " ".join(frames), "".join(divs)


_BODY_OPEN = re.compile(r"<body[^>]*>", re.IGNORECASE)
_SELF_CLOSING_PDF_TAG = re.compile(r"<(pdf:[a-z]+)(\s[^<>]*?)?\s*/>", re.IGNORECASE)


def _close_pdf_tags(html: str) -> str:
    # The HTML parser ignores "/>" on unknown tags, so each <pdf:nextpage /> would
    # swallow the rest of the document as its child: 3,000 page breaks nest 3,000 deep.
    return _SELF_CLOSING_PDF_TAG.sub(
        lambda m: f"<{m.group(1)}{m.group(2) or ''}></{m.group(1)}>", html
    )


def build_document(*, body_html: str, css: str, options: PdfOptions) -> str:
    """Wrap rendered HTML into a full document carrying the template CSS and page options."""
    # xhtml2pdf treats a second @page rule as a new page template that drops the first
    # one's margins and frames, so options go into the template's own rule.
    body_html = _close_pdf_tags(body_html)
    style = f"<style>{fonts_css(body_html + css)}{css}</style>"
    if _HEAD_CLOSE.search(body_html):
        document = _HEAD_CLOSE.sub(lambda _: f"{style}</head>", body_html, count=1)
    elif _HTML_OPEN.search(body_html):
        document = _HTML_OPEN.sub(lambda m: f"{m.group(0)}<head>{style}</head>", body_html, count=1)
    else:
        document = (
            f'<html><head><meta charset="utf-8">{style}</head><body>{body_html}</body></html>'
        )
    margin = options.margin or DEFAULT_MARGIN
    frames, divs = _running_blocks(options, margin)
    if divs:
        if _BODY_OPEN.search(document):
            document = _BODY_OPEN.sub(lambda m: f"{m.group(0)}{divs}", document, count=1)
        else:
            document = document.replace("</head>", f"</head><body>{divs}", 1) + "</body>"
    declarations = f"size: {options.page_size.lower()} {options.orientation};"
    if options.margin:
        declarations += f" margin: {options.margin};"
    declarations += f" {frames}" if frames else ""
    sized = _into_page_rule(document, declarations)
    if sized is not None:
        return sized
    page_css = f"<style>@page {{ margin: {DEFAULT_MARGIN}; {declarations} }}</style>"
    return _HEAD_CLOSE.sub(lambda _: f"{page_css}</head>", document, count=1)


def _page_guard(on_page_count: PageCallback | None) -> PageCallback:
    limit = settings.PDF_MAX_PAGES

    def guard(page: int) -> None:
        if page > limit:
            raise LimitExceeded(f"The report has more than {limit} pages; the limit is {limit}.")
        if on_page_count is not None:
            on_page_count(page)

    return guard


def html_to_pdf(
    html: str,
    *,
    max_render_seconds: float | None = None,
    on_page_count: PageCallback | None = None,
    meta: dict[str, str] | None = None,
    max_pages: int | None = None,
) -> RenderedPdf:
    """Lay out a full HTML document as PDF under the locked-down resource policy.
    `on_page_count(n)` is called as page n starts; `meta` sets title/author/subject;
    `max_pages` stops the layout after that many pages (a preview needs only the first)."""
    if len(html.encode("utf-8")) > settings.PDF_MAX_HTML_BYTES:
        raise LimitExceeded(
            f"The rendered HTML is larger than the {settings.PDF_MAX_HTML_BYTES} bytes allowed."
        )
    out = io.BytesIO()
    policy = resource_policy(max_render_seconds=max_render_seconds)
    with (
        collect_warnings() as warnings,
        on_page(_page_guard(on_page_count)),
        page_cap(max_pages),
    ):
        try:
            status = pisa.pisaDocument(
                html,
                dest=out,
                encoding="utf-8",
                resource_policy=policy,
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
    if page_count > settings.PDF_MAX_PAGES:
        raise LimitExceeded(
            f"The report has {page_count} pages; the limit is {settings.PDF_MAX_PAGES}."
        )
    return RenderedPdf(content=content, page_count=page_count, warnings=list(warnings))


def document_render(
    document: str,
    *,
    chunks: int = 1,
    render_many: ManyRender | None = None,
    max_render_seconds: float | None = None,
    on_page_count: PageCallback | None = None,
    meta: dict[str, str] | None = None,
) -> RenderedPdf:
    """Lay a full document out with one pass over each page. Page numbers, page counts
    and a table of contents would need xhtml2pdf's second pass over the whole document,
    so the body is laid out alone (in up to `chunks` pieces; `render_many` may spread
    them over workers), the contents last with the entries the body produced, and the
    numbered header/footer stamped on the merged pages. Documents that need the whole
    layout at once (page templates, per-page frames) render whole."""
    if chunks <= 1 and document.count("<") < ONE_PASS_MIN_TAGS:
        plan = None  # a short document's second pass costs less than a stamp and a merge
    else:
        plan = document_plan(document)
    if plan is None or (chunks <= 1 and not plan.numbered and plan.toc_section is None):
        return html_to_pdf(
            document,
            max_render_seconds=max_render_seconds,
            on_page_count=on_page_count,
            meta=meta,
        )
    done = 0

    def render(html: str, entries: list[TocEntry] | None) -> ChunkPdf:
        nonlocal done
        progress = None if on_page_count is None else (lambda page: on_page_count(done + page))
        part = chunk_render(
            html, entries, max_render_seconds=max_render_seconds, meta=meta, on_page_count=progress
        )
        done += part.page_count
        return part

    content, page_count, warnings = plan_render(
        plan,
        chunks=chunks,
        render=render,
        render_many=render_many,
        stamp_render=lambda html: html_to_pdf(html, meta=meta).content,
    )
    if page_count > settings.PDF_MAX_PAGES:
        raise LimitExceeded(
            f"The report has {page_count} pages; the limit is {settings.PDF_MAX_PAGES}."
        )
    return RenderedPdf(content=content, page_count=page_count, warnings=warnings)


def chunk_render(
    html: str,
    entries: list[TocEntry] | None = None,
    *,
    max_render_seconds: float | None = None,
    meta: dict[str, str] | None = None,
    on_page_count: PageCallback | None = None,
) -> ChunkPdf:
    """Lay out one chunk document; `entries` fill its table of contents in one pass."""
    with toc_collect() as notified, toc_seed(entries):
        rendered = html_to_pdf(
            html, max_render_seconds=max_render_seconds, on_page_count=on_page_count, meta=meta
        )
    return ChunkPdf(
        content=rendered.content,
        page_count=rendered.page_count,
        toc_entries=list(notified),
        warnings=rendered.warnings,
    )


@dataclass(frozen=True)
class PreparedDocument:
    """A report's final HTML (template run, charts drawn), ready to lay out."""

    document: str
    meta: dict[str, str]
    warnings: list[str]


def report_prepare(
    *,
    engine: str,
    source: str,
    css: str,
    data: dict[str, Any],
    options: PdfOptions,
    on_stage: StageCallback | None = None,
) -> PreparedDocument:
    """Run the template and draw its charts. Stages: rendering_template, rendering_charts."""
    notify = on_stage or (lambda stage, progress: None)
    notify("rendering_template", 10)
    body = get_engine(engine).render(source, data)
    notify("rendering_charts", 20)
    body, chart_warnings = charts_embed(
        body, on_chart=lambda done, total: notify("rendering_charts", 20 + 20 * done // total)
    )
    meta = {"title": options.title, "author": options.author, "subject": options.subject}
    document = build_document(body_html=body, css=css, options=options)
    return PreparedDocument(document=document, meta=meta, warnings=chart_warnings)


def pdf_finish(rendered: RenderedPdf, *, options: PdfOptions, warnings: list[str]) -> RenderedPdf:
    """The laid-out PDF with the job's watermark, and every warning of the render."""
    content = watermark_apply(rendered.content, options.watermark) if options.watermark else None
    return RenderedPdf(
        content=content or rendered.content,
        page_count=rendered.page_count,
        warnings=warnings + rendered.warnings,
    )


def report_render(
    *,
    engine: str,
    source: str,
    css: str,
    data: dict[str, Any],
    options: PdfOptions,
    on_stage: StageCallback | None = None,
    on_page: PageCallback | None = None,
    max_render_seconds: float | None = None,
    max_pages: int | None = None,
) -> RenderedPdf:
    """Render template + data with the named engine, draw its charts, lay the HTML out as
    a PDF and stamp it. Stages: rendering_template, rendering_charts, laying_out (progress
    rising with the pages laid out), finishing. `on_page(n)` is called as page n starts."""
    prepared = report_prepare(
        engine=engine, source=source, css=css, data=data, options=options, on_stage=on_stage
    )
    return report_layout(
        prepared,
        options=options,
        on_stage=on_stage,
        on_page=on_page,
        max_render_seconds=max_render_seconds,
        max_pages=max_pages,
    )


def report_layout(
    prepared: PreparedDocument,
    *,
    options: PdfOptions,
    on_stage: StageCallback | None = None,
    on_page: PageCallback | None = None,
    max_render_seconds: float | None = None,
    max_pages: int | None = None,
) -> RenderedPdf:
    """Lay a prepared document out in this process. Stages: laying_out, finishing."""
    notify = on_stage or (lambda stage, progress: None)
    notify("laying_out", 40)

    def page_started(page: int) -> None:
        if page % 5 == 0:  # a progress event per page would flood the job's followers
            notify("laying_out", min(85, 40 + page // 2))
        if on_page is not None:
            on_page(page)

    if max_pages is not None:  # a preview: the first pages as the whole layout has them
        rendered = html_to_pdf(
            prepared.document,
            max_render_seconds=max_render_seconds,
            on_page_count=page_started,
            meta=prepared.meta,
            max_pages=max_pages,
        )
    else:
        rendered = document_render(
            prepared.document,
            max_render_seconds=max_render_seconds,
            on_page_count=page_started,
            meta=prepared.meta,
        )
    notify("finishing", 88)
    return pdf_finish(rendered, options=options, warnings=prepared.warnings)
