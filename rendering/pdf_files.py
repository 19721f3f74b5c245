"""PDFs people already have as a job's source (engine `pdf-form` with no data): one or more
PDF data URIs, one a line, joined in order and passed on to the job's steps unchanged.

Gotenberg's PDF-engine routes (dropins.gotenberg_pdfengines) submit these; the files are
parsed here, in the worker, never on the web process. Each file's document information is
kept for a metadata read (`compliance["sources"]`)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from rendering.errors import InvalidInput, page_count_check
from rendering.forms import form_pdf, form_source
from rendering.limits import Limits
from rendering.renderers.base import RenderedPdf

if TYPE_CHECKING:
    import pikepdf

# pikepdf is imported by the functions that parse the files (in the worker): the web's
# Gotenberg routes import this module for its limit, and pikepdf costs a start ~30 ms.

MAX_PDF_FILES = 20
# Document information keys as Gotenberg's metadata/read answers them (ExifTool's names).
_INFO_NAMES = {"/CreationDate": "CreateDate", "/ModDate": "ModDate"}


def pdf_files_source(pdfs: list[bytes]) -> str:
    """The source that carries these PDFs, in this order."""
    return "\n".join(form_source(pdf) for pdf in pdfs)


def pdf_files(source: str) -> list[bytes]:
    return [form_pdf(line.strip()) for line in source.splitlines() if line.strip()]


def _open(pdf: bytes, number: int) -> pikepdf.Pdf:
    import pikepdf

    try:
        return pikepdf.open(io.BytesIO(pdf))
    except pikepdf.PasswordError:
        raise InvalidInput(
            f"PDF file {number} is encrypted: send it decrypted (no password is taken)."
        ) from None
    except pikepdf.PdfError:
        raise InvalidInput(f"PDF file {number} is not a readable PDF.") from None


def document_info(pdf: pikepdf.Pdf) -> dict[str, Any]:
    """The document information dictionary as plain JSON, with its page count and version."""
    info: dict[str, Any] = {}
    for key, value in pdf.docinfo.items():
        name = _INFO_NAMES.get(str(key), str(key).lstrip("/"))
        info[name] = _exiftool_date(str(value)) if str(key) in _INFO_NAMES else str(value)
    info["PageCount"] = len(pdf.pages)
    info["PDFVersion"] = float(pdf.pdf_version)
    return info


def _exiftool_date(raw: str) -> str:
    """A PDF date (D:20240501100000+00'00') as ExifTool writes it (2024:05:01
    10:00:00+00:00), as Gotenberg's metadata/read answers; as it is when unreadable."""
    from pikepdf.models.metadata import decode_pdf_date

    try:
        moment = decode_pdf_date(raw)
    except ValueError:
        return raw
    shown = moment.strftime("%Y:%m:%d %H:%M:%S")
    offset = moment.strftime("%z")
    return f"{shown}{offset[:3]}:{offset[3:]}" if offset else shown


def pdf_files_render(source: str, *, flatten: bool, limits: Limits) -> RenderedPdf:
    """The files' pages in order as one PDF (a lone file unchanged but re-saved), form
    fields drawn into the pages when `flatten`; InvalidInput naming a file that is not a
    PDF or is encrypted."""
    files = pdf_files(source)
    if not 0 < len(files) <= MAX_PDF_FILES:
        raise InvalidInput(f"Send 1 to {MAX_PDF_FILES} PDF files.")
    opened = [_open(pdf, number) for number, pdf in enumerate(files, start=1)]
    try:
        sources = [document_info(pdf) for pdf in opened]
        first = opened[0]
        for other in opened[1:]:
            first.pages.extend(other.pages)
        pages = len(first.pages)
        page_count_check(pages, limits.max_pages)
        if flatten:
            # QPDF draws each field's value into its page, then drops the form.
            first.generate_appearance_streams()
            first.flatten_annotations("all")
        out = io.BytesIO()
        first.save(out)
    finally:
        for pdf in opened:
            pdf.close()
    compliance = {"profile": None, "checks": [], "signature": None, "sources": sources}
    return RenderedPdf(content=out.getvalue(), page_count=pages, compliance=compliance)
