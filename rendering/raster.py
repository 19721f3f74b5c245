"""A page of a rendered PDF as a PNG image, for template thumbnails and previews."""

from __future__ import annotations

import io
import math

from rendering.errors import RenderError

# Most pixels a page is rasterised to unless the caller says otherwise (2000 x 2000).
DEFAULT_MAX_PIXELS = 4_000_000


def pdf_page_png(
    pdf: bytes, *, page: int = 0, width: int = 600, max_pixels: int = DEFAULT_MAX_PIXELS
) -> bytes:
    """Rasterise one page of a PDF to a PNG `width` pixels wide (aspect ratio kept), or
    narrower if that would exceed `max_pixels`: the page size comes from the template
    (`@page { size: 10mm 12500mm }`), and no page may ask for gigabytes."""
    # Imported when used: the previews' module, in the API's URL conf, imports this one.
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    # A fillable form's fields are drawn with their values, as a viewer shows them (pdfium
    # draws no field without its form environment, set up before a page is loaded).
    document.init_forms()
    try:
        if not 0 <= page < len(document):
            raise RenderError(f"The PDF has no page {page + 1}.")
        pdf_page = document[page]
        page_width, page_height = pdf_page.get_width(), pdf_page.get_height()
        scale = width / page_width
        if page_width * page_height * scale * scale > max_pixels:
            scale = (max_pixels / (page_width * page_height)) ** 0.5
            while math.ceil(page_width * scale) * math.ceil(page_height * scale) > max_pixels:
                scale *= 0.99  # pdfium rounds each side up
        image = pdf_page.render(scale=scale).to_pil()
        out = io.BytesIO()
        image.save(out, format="PNG", optimize=True)
        return out.getvalue()
    finally:
        document.close()
