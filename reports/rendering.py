"""HTML to PDF with xhtml2pdf: a pure function of (template, data, options) -> PDF bytes."""

from __future__ import annotations

import io
import logging
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from pypdf import PdfReader
from xhtml2pdf import pisa
from xhtml2pdf.config.resources import RenderLimitError, ResourceAccessPolicy

from reports.engines import get_engine
from reports.errors import LimitExceeded, RenderError
from reports.options import PdfOptions

ASSETS_DIR = Path(__file__).with_name("assets")
StageCallback = Callable[[str, int], None]


@dataclass(frozen=True)
class RenderedPdf:
    content: bytes
    page_count: int
    warnings: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.content)


def _policy() -> ResourceAccessPolicy:
    # Untrusted HTML: no network at all, local reads only from the bundled assets.
    return ResourceAccessPolicy.server(
        base_dir=ASSETS_DIR,
        allow_remote=False,
        max_render_seconds=settings.PDF_SOFT_TIME_LIMIT,
        max_document_bytes=settings.PDF_MAX_HTML_BYTES,
    )


class _WarningCollector(logging.Handler):
    """Collects xhtml2pdf's warnings raised by this thread's render."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.thread = threading.get_ident()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread and len(self.messages) < 50:
            self.messages.append(record.getMessage()[:300])


@contextmanager
def _collect_warnings() -> Iterator[list[str]]:
    logger = logging.getLogger("xhtml2pdf")
    collector = _WarningCollector()
    logger.addHandler(collector)
    try:
        yield collector.messages
    finally:
        logger.removeHandler(collector)


_HEAD_CLOSE = re.compile(r"</head\s*>", re.IGNORECASE)
_HTML_OPEN = re.compile(r"<html[^>]*>", re.IGNORECASE)
_PAGE_RULE = re.compile(r"@page\s*\{")
DEFAULT_MARGIN = "2cm"


def _with_page_size(document: str, size: str) -> str | None:
    """Add `size` at the end of the document's first unnamed @page rule, so the job's
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
                return f"{document[:index]}; size: {size};\n{document[index:]}"
    return None


def build_document(*, body_html: str, css: str, options: PdfOptions) -> str:
    """Wrap rendered HTML into a full document carrying the template CSS and page options."""
    # xhtml2pdf treats a second @page rule as a new page template that drops the first
    # one's margins and frames, so the size goes into the template's own rule.
    style = f"<style>{css}</style>" if css else ""
    if _HEAD_CLOSE.search(body_html):
        document = _HEAD_CLOSE.sub(lambda _: f"{style}</head>", body_html, count=1)
    elif _HTML_OPEN.search(body_html):
        document = _HTML_OPEN.sub(lambda m: f"{m.group(0)}<head>{style}</head>", body_html, count=1)
    else:
        document = (
            f'<html><head><meta charset="utf-8">{style}</head><body>{body_html}</body></html>'
        )
    size = f"{options.page_size.lower()} {options.orientation}"
    sized = _with_page_size(document, size)
    if sized is not None:
        return sized
    page_css = f"<style>@page {{ size: {size}; margin: {DEFAULT_MARGIN}; }}</style>"
    return _HEAD_CLOSE.sub(lambda _: f"{page_css}</head>", document, count=1)


def html_to_pdf(html: str) -> RenderedPdf:
    """Lay out a full HTML document as PDF under the locked-down resource policy."""
    if len(html.encode("utf-8")) > settings.PDF_MAX_HTML_BYTES:
        raise LimitExceeded(
            f"The rendered HTML is larger than the {settings.PDF_MAX_HTML_BYTES} bytes allowed."
        )
    out = io.BytesIO()
    with _collect_warnings() as warnings:
        try:
            status = pisa.pisaDocument(html, dest=out, encoding="utf-8", resource_policy=_policy())
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


def report_render(
    *,
    engine: str,
    source: str,
    css: str,
    data: dict[str, Any],
    options: PdfOptions,
    on_stage: StageCallback | None = None,
) -> RenderedPdf:
    """Render template + data with the named engine, then lay the HTML out as a PDF."""
    notify = on_stage or (lambda stage, progress: None)
    notify("rendering_template", 20)
    body = get_engine(engine).render(source, data)
    notify("laying_out", 50)
    return html_to_pdf(build_document(body_html=body, css=css, options=options))
