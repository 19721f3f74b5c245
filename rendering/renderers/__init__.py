"""Renderers by name: each lays out rendered template HTML as a PDF (see `base.Renderer`)."""

from __future__ import annotations

import importlib
from typing import Any

from rendering.errors import InvalidInput
from rendering.renderers.base import Chunker, LayoutJob, RenderedPdf, Renderer


class _Imported:
    """A renderer whose module is imported on first use: a web process that only checks
    names never loads xhtml2pdf and ReportLab (~0.3 s of every start), WeasyPrint or
    Playwright; a worker imports them before its pool forks (rendering.preload). With
    `renderer_class`, the module's renderer does the work; else the module's `layout` gets
    the limits as bounds, and what its `layout_settings(limits)` adds."""

    def __init__(self, name: str, renderer_class: str = "") -> None:
        self.name = name
        self.renderer_class = renderer_class

    def render(self, job: LayoutJob) -> RenderedPdf:
        module = importlib.import_module(f"rendering.renderers.{self.name}")
        if self.renderer_class:
            renderer: Renderer = getattr(module, self.renderer_class)()
            return renderer.render(job)
        settings: dict[str, Any] = getattr(module, "layout_settings", lambda limits: {})(job.limits)
        rendered: RenderedPdf = module.layout(job, bounds=job.bounds, **settings)
        return rendered


_RENDERERS: dict[str, Renderer] = {
    renderer.name: renderer
    for renderer in (
        _Imported("xhtml2pdf", "Xhtml2PdfRenderer"),
        _Imported("weasyprint"),
        _Imported("chromium"),
    )
}
RENDERER_NAMES: tuple[str, ...] = tuple(_RENDERERS)
DEFAULT_RENDERER = "xhtml2pdf"
# What each one is good at, for people choosing (the API reference, the form).
RENDERER_DESCRIPTIONS = {
    "xhtml2pdf": "the default: ReportLab-based, reads xhtml2pdf's <pdf:...> tags "
    "(page numbers, frames); CSS 2 only, no flex or grid",
    "weasyprint": "modern print CSS without a browser: flex, grid, @page margin boxes, "
    "counter(page), named pages; ignores <pdf:...> tags",
    "chromium": "headless Chromium: the only one that runs the template's JavaScript "
    "(network closed); ignores <pdf:...> tags",
}
# Renderers that draw SVG images as vectors (charts stay sharp); xhtml2pdf gets PNGs.
VECTOR_RENDERERS = frozenset({"weasyprint", "chromium"})


def get_renderer(name: str = DEFAULT_RENDERER) -> Renderer:
    try:
        return _RENDERERS[name]
    except (KeyError, TypeError):
        known = ", ".join(RENDERER_NAMES)
        raise InvalidInput(f"Unknown renderer {name!r}; use one of: {known}.") from None


def get_chunker(name: str) -> Chunker | None:
    """The named renderer's chunked layout, or None: Chromium lays every document out
    whole (its warm browser prints 50 pages faster than a chord could share them out)."""
    get_renderer(name)
    if name == "xhtml2pdf":
        from rendering.renderers.xhtml2pdf import Xhtml2PdfChunker

        return Xhtml2PdfChunker()
    if name == "weasyprint":
        chunker: Chunker = importlib.import_module("rendering.renderers.weasyprint_chunks").CHUNKER
        return chunker
    return None
