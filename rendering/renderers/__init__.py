"""Renderers by name: each lays out a full HTML document as a PDF (see `base.Renderer`)."""

from __future__ import annotations

from rendering.errors import RenderError
from rendering.renderers.base import Renderer
from rendering.renderers.xhtml2pdf import Xhtml2PdfRenderer

_RENDERERS: dict[str, Renderer] = {renderer.name: renderer for renderer in (Xhtml2PdfRenderer(),)}
RENDERER_NAMES: tuple[str, ...] = tuple(_RENDERERS)
DEFAULT_RENDERER = "xhtml2pdf"


def get_renderer(name: str = DEFAULT_RENDERER) -> Renderer:
    try:
        return _RENDERERS[name]
    except KeyError:
        known = ", ".join(RENDERER_NAMES)
        raise RenderError(f"Unknown renderer {name!r}; use one of: {known}.") from None
