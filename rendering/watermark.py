"""A diagonal watermark ("DRAFT", "TEST") stamped over every page of a finished PDF, or an
image or another PDF's first page drawn over (a stamp) or under (a watermark) each page."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

from rendering.errors import RenderError

if TYPE_CHECKING:
    from pypdf import PdfReader
    from reportlab.lib.utils import ImageReader

# ReportLab, pypdf and Pillow are imported by the functions that stamp: the report
# pipeline imports this module wherever a preview is served (the web's URL conf), and they
# cost that start ~0.1 s. A worker imports them before its pool forks (rendering.preload).


def _stamp(text: str, width: float, height: float) -> PdfReader:
    from pypdf import PdfReader
    from reportlab.lib.colors import Color
    from reportlab.pdfgen.canvas import Canvas

    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(width, height))
    canvas.setFillColor(Color(0.75, 0.1, 0.1, alpha=0.18))
    size = min(110.0, 1.3 * min(width, height) / max(len(text), 1))
    canvas.setFont("Helvetica-Bold", size)
    canvas.translate(width / 2, height / 2)
    canvas.rotate(45 if height >= width else 30)
    canvas.drawCentredString(0, -size / 3, text)
    canvas.save()
    return PdfReader(io.BytesIO(out.getvalue()))


def watermark_apply(pdf: bytes, text: str, *, over: bool = True) -> bytes:
    """Return `pdf` with `text` drawn across each page, translucent: above the content, or
    under it (`over=False`, a watermark that the page's own drawing covers)."""
    return _layered(pdf, lambda width, height: _stamp(text, width, height), over)


def _image_stamp(image: ImageReader, width: float, height: float) -> PdfReader:
    """A page of `width` x `height` with `image` centred at half the page at most (as
    pdfcpu, Gotenberg's engine, scales an image stamp by default), its proportions kept."""
    from pypdf import PdfReader
    from reportlab.pdfgen.canvas import Canvas

    pixels_wide, pixels_high = image.getSize()
    scale = min(width * 0.5 / pixels_wide, height * 0.5 / pixels_high)
    drawn_wide, drawn_high = pixels_wide * scale, pixels_high * scale
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(width, height))
    # mask="auto": a PNG's transparency stays transparent instead of turning black.
    canvas.drawImage(
        image,
        (width - drawn_wide) / 2,
        (height - drawn_high) / 2,
        drawn_wide,
        drawn_high,
        mask="auto",
    )
    canvas.save()
    return PdfReader(io.BytesIO(out.getvalue()))


def image_stamp_apply(pdf: bytes, image: bytes, *, over: bool = True) -> bytes:
    """Return `pdf` with `image` (PNG, JPEG...) centred on each page, over the content or
    under it (`over=False`); RenderError for bytes that are not an image."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader

    try:
        with Image.open(io.BytesIO(image)) as opened:
            opened.load()
            # One decoded copy for every page size: each page refers to the same picture.
            reader = ImageReader(opened.copy())
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise RenderError(f"stamp: the image could not be read ({exc}).") from None
    return _layered(pdf, lambda width, height: _image_stamp(reader, width, height), over)


def pdf_stamp_apply(pdf: bytes, stamp_pdf: bytes, *, over: bool = True) -> bytes:
    """Return `pdf` with the first page of `stamp_pdf` drawn on each page, over the
    content or under it, scaled down to fit the page when larger and centred (Gotenberg's
    stampSource=pdf: a full-page PDF on top); RenderError for an unreadable stamp PDF."""
    from pypdf import PdfReader, PdfWriter, Transformation
    from pypdf.errors import PdfReadError

    try:
        stamp_reader = PdfReader(io.BytesIO(stamp_pdf))
        if stamp_reader.is_encrypted:
            raise RenderError("stamp: the stamp PDF is encrypted; send it without a password.")
        stamp = stamp_reader.pages[0]
        stamp_box = (float(stamp.mediabox.width), float(stamp.mediabox.height))
    except (PdfReadError, IndexError, ValueError) as exc:
        raise RenderError(f"stamp: the stamp PDF could not be read ({exc}).") from None
    reader = PdfReader(io.BytesIO(pdf))
    writer = PdfWriter(clone_from=reader)
    for page in writer.pages:
        width, height = float(page.mediabox.width), float(page.mediabox.height)
        scale = min(1.0, width / stamp_box[0], height / stamp_box[1])
        placed = (
            Transformation()
            .translate(-float(stamp.mediabox.left), -float(stamp.mediabox.bottom))
            .scale(scale)
            .translate(
                float(page.mediabox.left) + (width - stamp_box[0] * scale) / 2,
                float(page.mediabox.bottom) + (height - stamp_box[1] * scale) / 2,
            )
        )
        page.merge_transformed_page(stamp, placed, over=over)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _layered(pdf: bytes, make: Callable[[float, float], PdfReader], over: bool) -> bytes:
    """`pdf` with the page `make` draws for each page size merged over or under each page."""
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(io.BytesIO(pdf))
    writer = PdfWriter(clone_from=reader)
    stamps: dict[tuple[float, float], PdfReader] = {}
    for page in writer.pages:
        size = (float(page.mediabox.width), float(page.mediabox.height))
        if size not in stamps:
            stamps[size] = make(*size)
        page.merge_page(stamps[size].pages[0], over=over)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
