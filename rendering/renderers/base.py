"""What every renderer implements: a full HTML document in, a PDF out, under the limits."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from xhtml2pdf.config.resources import ResourceAccessPolicy

from rendering.errors import html_size_check
from rendering.limits import Limits
from rendering.merging import ChunkPdf
from rendering.options import PdfOptions
from rendering.resources import resource_policy

PageCallback = Callable[[int], None]


@dataclass(frozen=True)
class RenderedPdf:
    content: bytes
    page_count: int
    warnings: list[str] = field(default_factory=list)
    # What the finished PDF was checked for (options.pdf); None when nothing was asked.
    compliance: dict[str, Any] | None = None

    @property
    def size(self) -> int:
        return len(self.content)


@dataclass(frozen=True)
class LayoutBounds:
    """What one layout may fetch, take and make: the resource policy, the deadline, the
    pages and HTML bytes allowed, and the pages kept (`page_cap`: a preview's one)."""

    policy: ResourceAccessPolicy
    max_render_seconds: float
    max_pages: int
    max_html_bytes: int
    page_cap: int | None = None

    @classmethod
    def from_limits(cls, limits: Limits, *, page_cap: int | None = None) -> LayoutBounds:
        return cls(
            policy=resource_policy(limits),
            max_render_seconds=limits.max_render_seconds,
            max_pages=limits.max_pages,
            max_html_bytes=limits.max_html_bytes,
            page_cap=page_cap,
        )

    def size_check(self, document: str) -> None:
        html_size_check(document, self.max_html_bytes)


@dataclass(frozen=True)
class LayoutJob:
    """What one layout takes: rendered template HTML with the template's CSS, the page
    options and the limits. `on_page(n)` is called as page n starts, or once the layout is
    done (and may raise to stop it); `max_pages` keeps only the first pages (a preview
    needs one)."""

    body_html: str
    css: str
    options: PdfOptions
    limits: Limits
    on_page: PageCallback | None = None
    max_pages: int | None = None

    @property
    def bounds(self) -> LayoutBounds:
        return LayoutBounds.from_limits(self.limits, page_cap=self.max_pages)


class Renderer(Protocol):
    """Lays out a LayoutJob as a PDF.

    Each renderer builds its own document from the job's `body_html`, `css` and page
    `options` (xhtml2pdf's frames, WeasyPrint's margin boxes, Chromium's print settings).
    Raises a RenderError subclass for any problem a person can fix, LimitExceeded for a
    limit."""

    name: str

    def render(self, job: LayoutJob) -> RenderedPdf: ...


class Chunker(Protocol):
    """A renderer that lays a large document out in chunks on several processes at once.

    `plan` cuts the document into chunks (a JSON text the job stores), or returns None when
    it must be laid out whole; `render_chunk` is a pure render of one body chunk (any
    process); `merge` lays out what needs every chunk's pages (the contents), merges the
    chunks and numbers the pages, so no chunk needs a second layout pass."""

    def plan(self, *, body_html: str, css: str, options: PdfOptions, chunks: int) -> str | None: ...

    def count(self, plan: str) -> int: ...

    def render_chunk(self, plan: str, index: int, *, limits: Limits) -> ChunkPdf: ...

    def merge(self, plan: str, parts: list[ChunkPdf], *, limits: Limits) -> RenderedPdf: ...


def document_info_apply(pdf: bytes, options: PdfOptions) -> bytes:
    """The job's title, author and subject in the PDF's document information, for what
    makes a PDF without them (Chromium, LibreOffice)."""
    fields = {"/Title": options.title, "/Author": options.author, "/Subject": options.subject}
    fields = {key: value for key, value in fields.items() if value}
    if not fields:
        return pdf
    from pypdf import PdfReader, PdfWriter  # imported when used: ~0.1 s of every process start

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    writer.add_metadata(fields)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
