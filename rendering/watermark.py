"""A diagonal watermark ("DRAFT", "TEST") stamped over every page of a finished PDF."""

from __future__ import annotations

import io

from pypdf import PdfReader, PdfWriter
from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import Canvas


def _stamp(text: str, width: float, height: float) -> PdfReader:
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


def watermark_apply(pdf: bytes, text: str) -> bytes:
    """Return `pdf` with `text` drawn across each page, above the content, translucent."""
    reader = PdfReader(io.BytesIO(pdf))
    writer = PdfWriter(clone_from=reader)
    stamps: dict[tuple[float, float], PdfReader] = {}
    for page in writer.pages:
        size = (float(page.mediabox.width), float(page.mediabox.height))
        if size not in stamps:
            stamps[size] = _stamp(text, *size)
        page.merge_page(stamps[size].pages[0], over=True)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
