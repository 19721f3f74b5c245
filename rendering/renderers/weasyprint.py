"""WeasyPrint: modern CSS (flex, grid, @page margin boxes, counters, named pages) with no
browser. Every resource goes through the resource policy by its url_fetcher; the layout
runs under a deadline; pages larger than the largest page size offered are refused."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import weasyprint
from weasyprint.urls import URLFetcher, URLFetcherResponse
from xhtml2pdf.config.resources import ResourceAccessPolicy

from rendering.deadline import DeadlineExceeded, deadline
from rendering.errors import LayoutFailed, LimitExceeded, page_count_check
from rendering.fetch import ResourceRefused, public_message, resource_fetch
from rendering.options import PdfOptions
from rendering.renderers.base import LayoutBounds, LayoutJob, RenderedPdf
from rendering.renderers.document import (
    RUNNING_STYLE,
    TOC_TARGET_COUNTER,
    has_toc,
    html_document,
    running_content,
)
from rendering.thread_warnings import ThreadWarnings, thread_warnings

NAME = "weasyprint"
# A3 is the largest size offered; a named @page of a template may not go far beyond it
# (a 10,000-inch page would make every preview and thumbnail rasterise for ever).
_MAX_PAGE_SIDE_PX = 1.2 * 420 / 25.4 * 96


class _PolicyFetcher(URLFetcher):
    """Hands every URL to the resource policy; a refusal becomes a warning on the job."""

    def __init__(self, policy: ResourceAccessPolicy, warnings: list[str]) -> None:
        super().__init__()
        self.policy = policy
        self.warnings = warnings

    def fetch(self, url: str, headers: object = None) -> URLFetcherResponse:
        try:
            fetched = resource_fetch(url, self.policy)
        except ResourceRefused as exc:
            if len(self.warnings) < 50:
                self.warnings.append(str(exc))
            raise
        return URLFetcherResponse(url, fetched.body, {"Content-Type": fetched.mime_type})


# WeasyPrint names an unknown at-rule by its parser object: "<AtRule @frame … { … }>".
_AT_RULE = re.compile(r"<AtRule (@[\w-]+)[^>]*>")


class _LogCollector(ThreadWarnings):
    """WeasyPrint's warnings of this thread's render (ignored CSS…), without duplicates of
    the refusals the fetcher already recorded."""

    def kept(self, message: str) -> str | None:
        if "Failed to load" in message:
            return None
        message = _AT_RULE.sub(lambda m: m.group(1), public_message(message.splitlines()[0]))
        if "@frame" in message or "-pdf-" in message:
            message += " (xhtml2pdf's own CSS: the xhtml2pdf renderer reads it)"
        return None if message in self.messages else message


def _file_url(path: Path) -> str:
    return path.resolve().as_uri()


def page_css(options: PdfOptions, *, toc: bool) -> str:
    """Margin boxes for the header and footer options, and the job's page size."""
    boxes = ""
    for text, box in ((options.header, "top-center"), (options.footer, "bottom-center")):
        if text:
            boxes += f" @{box} {{ content: {running_content(text)}; {RUNNING_STYLE} }}"
    margin = f" margin: {options.margin} !important;" if options.margin else ""
    size = f"{options.page_size} {options.orientation}"
    # target-counter() makes WeasyPrint lay the pages out twice: only with a contents.
    contents = TOC_TARGET_COUNTER if toc else ""
    return f"@page {{ size: {size} !important;{margin}{boxes} }}\n{contents}\n"


def laid_out(document: str, bounds: LayoutBounds) -> tuple[weasyprint.Document, list[str]]:
    """Lay out a full document under the resource policy and the deadline: its pages and
    the warnings (refused resources, ignored CSS). Limits and layout failures raise."""
    bounds.size_check(document)
    policy, max_render_seconds = bounds.policy, bounds.max_render_seconds
    warnings: list[str] = []
    with thread_warnings("weasyprint", _LogCollector()) as logged:
        try:
            with deadline(max_render_seconds):
                laid = weasyprint.HTML(
                    string=document, url_fetcher=_PolicyFetcher(policy, warnings)
                ).render()
        except DeadlineExceeded:
            raise LimitExceeded(
                f"The layout took longer than {max_render_seconds:g} s (PDF_MAX_RENDER_SECONDS)."
            ) from None
        except RecursionError:
            raise LimitExceeded("The document nests elements too deeply to lay out.") from None
        except (AssertionError, ArithmeticError, IndexError, KeyError, TypeError, ValueError):
            # WeasyPrint has no error type of its own for a layout it cannot finish.
            raise LayoutFailed(
                "WeasyPrint could not lay the document out. Simplify the part that uses "
                "unusual CSS (nested multi-column, grid or table layouts), or try the "
                "chromium renderer."
            ) from None
    pages = laid.pages
    page_count_check(len(pages), bounds.max_pages)
    if any(max(page.width, page.height) > _MAX_PAGE_SIDE_PX for page in pages):
        raise LimitExceeded("A page is larger than the largest page size offered (A3).")
    return laid, warnings + logged


def pdf_write(laid: weasyprint.Document, options: PdfOptions) -> bytes:
    """The PDF of laid-out pages, with the job's title, author and subject, and (from
    options.pdf) WeasyPrint's own PDF/A or PDF/UA variant, keywords and language."""
    metadata = laid.metadata
    document = options.pdf
    wanted = document.metadata if document is not None else None
    title = (wanted.title if wanted else "") or options.title
    author = (wanted.author if wanted else "") or options.author
    subject = (wanted.subject if wanted else "") or options.subject
    metadata.title = title or metadata.title
    metadata.authors = [author] if author else metadata.authors
    metadata.description = subject or metadata.description
    if wanted is not None:
        metadata.keywords = list(wanted.keywords) or metadata.keywords
        metadata.lang = wanted.lang or metadata.lang
    variant = document.profile if document is not None and document.profile else None
    content: bytes = laid.write_pdf(pdf_variant=variant)
    return content


def document_for(
    body_html: str,
    *,
    css: str,
    options: PdfOptions,
    toc: bool,
    extra_page_css: str = "",
    toc_pages: Mapping[str, int] | None = None,
    toc_source: str | None = None,
) -> str:
    """The document WeasyPrint lays out: bundled fonts by file URL, the page CSS last
    (then `extra_page_css`); see `html_document` for the contents arguments."""
    return html_document(
        body_html=body_html,
        css=css,
        options=options,
        font_url=_file_url,
        page_css=page_css(options, toc=toc) + extra_page_css,
        toc_pages=toc_pages,
        toc_source=toc_source,
    )


def layout(job: LayoutJob, *, bounds: LayoutBounds) -> RenderedPdf:
    """Lay out rendered template HTML as PDF (`base.Renderer`, through the registry)."""
    body_html = job.body_html
    document = document_for(body_html, css=job.css, options=job.options, toc=has_toc(body_html))
    laid, warnings = laid_out(document, bounds)
    if bounds.page_cap is not None:
        laid = laid.copy(laid.pages[: bounds.page_cap])
    for number in range(1, len(laid.pages) + 1):
        if job.on_page is not None:
            job.on_page(number)
    content = pdf_write(laid, job.options)
    return RenderedPdf(content=content, page_count=len(laid.pages), warnings=warnings)
