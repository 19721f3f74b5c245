"""A page of a rendered PDF as a PNG image, for template thumbnails and previews."""

from __future__ import annotations

import io

import pypdfium2 as pdfium

from rendering.errors import RenderError


def pdf_page_png(pdf: bytes, *, page: int = 0, width: int = 600) -> bytes:
    """Rasterise one page of a PDF to a PNG `width` pixels wide (aspect ratio kept)."""
    document = pdfium.PdfDocument(pdf)
    try:
        if not 0 <= page < len(document):
            raise RenderError(f"The PDF has no page {page + 1}.")
        pdf_page = document[page]
        scale = width / pdf_page.get_width()
        image = pdf_page.render(scale=scale).to_pil()
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        return out.getvalue()
    finally:
        document.close()
