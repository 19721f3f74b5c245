"""Office files to PDF with LibreOffice (engine `office`: conversions): docx, xlsx, pptx,
odt, ods, odp, rtf, txt, html and md, checked first (rendering.office_files), converted in
this process's warm LibreOffice (rendering.office_service) and merged in order.

A conversion job's source is its files as JSON (`{"files": [{"name", "content"}]}`, the
content in base64), so it is stored, limited and re-run like any other source.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import io
import json
import os
import re
import shutil
import tempfile
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rendering.errors import InvalidInput, LimitExceeded, TemplateSyntaxError
from rendering.limits import DEFAULT_LIMITS, Limits, size_text
from rendering.office_files import FORMATS, office_prepare
from rendering.office_service import office_service
from rendering.postprocess.document_options import DocumentOptions

OFFICE_ENGINE = "office"
# The output profiles LibreOffice writes itself (SelectPdfVersion; PDFUACompliance).
OFFICE_PROFILES = {"pdf/a-2b": 2, "pdf/a-3b": 3, "pdf/ua-1": 0}
_RANGES = re.compile(r"^\s*\d+(\s*-\s*\d*)?(\s*,\s*\d+(\s*-\s*\d*)?)*\s*$")


def office_source(files: Sequence[tuple[str, bytes]]) -> str:
    """Files (name, content), in the order they are merged, as a conversion's source."""
    return json.dumps(
        {
            "files": [
                {"name": name, "content": base64.b64encode(content).decode("ascii")}
                for name, content in files
            ]
        }
    )


def office_files(source: str) -> list[tuple[str, bytes]]:
    """The files a conversion's source holds; a template error saying what is wrong."""
    try:
        parsed = json.loads(source)
        files = [
            (str(item["name"]), base64.b64decode(item["content"], validate=True))
            for item in parsed["files"]
        ]
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise TemplateSyntaxError(
            'An office conversion\'s source is {"files": [{"name": "a.docx", "content": '
            '"<base64>"}]}.'
        ) from None
    if not files:
        raise InvalidInput("Send at least one file to convert.")
    return files


def office_check(files: Sequence[tuple[str, bytes]], *, limits: Limits = DEFAULT_LIMITS) -> None:
    """Everything refused before a worker sees the files: formats, total size, hostile
    files (rendering.office_files)."""
    total = sum(len(content) for _name, content in files)
    if total > limits.max_office_bytes:
        raise LimitExceeded(
            f"The files are {size_text(total)}; at most {size_text(limits.max_office_bytes)} "
            "(PDF_MAX_OFFICE_BYTES).",
            http_status=413,
        )
    for name, content in files:
        office_prepare(content, name)


def page_ranges_check(value: str) -> str:
    if value and not _RANGES.match(value):
        raise InvalidInput(f"Page ranges {value!r}: write them as 1-3,5 (pages from 1).")
    return value.replace(" ", "")


def office_document_check(document: DocumentOptions | None) -> None:
    """options.pdf for a conversion: only the profiles LibreOffice writes itself."""
    if document is None:
        return
    if document.profile and document.profile not in OFFICE_PROFILES:
        raise InvalidInput(
            f"A conversion cannot produce {document.profile}; use one of: "
            f"{', '.join(OFFICE_PROFILES)}."
        )
    if document.e_invoice is not None:
        raise InvalidInput("A conversion does not embed an e-invoice.")


def office_convert(
    content: bytes,
    filename: str,
    *,
    timeout: float,
    page_ranges: str = "",
    landscape: bool = False,
    profile: str = "",
    limits: Limits = DEFAULT_LIMITS,
) -> bytes:
    """One file as PDF bytes; its extension names its format (FORMATS). InvalidInput for a
    file refused or that LibreOffice cannot read; OfficeTimeout past `timeout` (that
    LibreOffice is killed; the next conversion starts another); OfficeUnavailable when the
    worker has none."""
    prepared, kind = office_prepare(content, filename)
    service = office_service(
        executable=limits.office_path, profile_dir=Path(limits.office_profile_dir)
    )
    # Files of their own in this process's directory: a directory made and removed per
    # conversion cost ~2 ms of a short job's wall time (issue 41's Word bench).
    name = uuid.uuid4().hex
    work = _work_dir()
    source, target = work / f"{name}.{kind}", work / f"{name}.pdf"
    try:
        source.write_bytes(prepared)
        request: dict[str, Any] = {
            "in": str(source),
            "out": str(target),
            "page_range": page_ranges_check(page_ranges),
            "landscape": landscape,
            "pdf_version": OFFICE_PROFILES.get(profile, 0),
            "ua": profile == "pdf/ua-1",
        }
        answer = service.convert(request, timeout=timeout)
        if "error" in answer or not target.is_file():
            raise InvalidInput(
                f"{filename}: LibreOffice could not convert it ({answer.get('error', 'no PDF')})."
            )
        return target.read_bytes()
    finally:
        # The bridge may still hold the source open (it answers before it closes the
        # document): removing its name is fine, the data goes when LibreOffice lets go.
        source.unlink(missing_ok=True)
        target.unlink(missing_ok=True)


# This process's directory for the files of its conversions (a forked child makes its own),
# removed when the process exits.
_work: tuple[int, Path] | None = None
_work_lock = threading.Lock()


def _work_dir() -> Path:
    global _work
    with _work_lock:
        if _work is None or _work[0] != os.getpid() or not _work[1].is_dir():
            path = Path(tempfile.mkdtemp(prefix="office-"))
            atexit.register(_work_remove, os.getpid(), path)
            _work = (os.getpid(), path)
        return _work[1]


def _work_remove(pid: int, path: Path) -> None:
    if os.getpid() == pid:  # not a forked child's exit: the directory is its parent's
        shutil.rmtree(path, ignore_errors=True)


def office_merge(pdfs: Sequence[bytes]) -> tuple[bytes, int]:
    """PDFs joined in order (one is returned as it is) and the page count. The others go
    into the first, which keeps its catalog: its PDF/A identification and output intent."""
    import pikepdf  # imported when used: the engines' registry imports this module everywhere

    with pikepdf.open(io.BytesIO(pdfs[0])) as merged:
        if len(pdfs) == 1:
            return pdfs[0], len(merged.pages)
        for pdf in pdfs[1:]:
            with pikepdf.open(io.BytesIO(pdf)) as part:
                merged.pages.extend(part.pages)
        out = io.BytesIO()
        merged.save(out)
        return out.getvalue(), len(merged.pages)


def accepted_formats() -> str:
    return ", ".join(FORMATS)


class OfficeEngine:
    """The engine registry's entry for conversions: the files are checked at submit; a job
    converts them (rendering.report) instead of making HTML."""

    name = OFFICE_ENGINE
    label = "Office conversion (LibreOffice)"

    def check(self, source: str) -> None:
        """Each file's format and hostile-file rules, at submit (a 400, not a failed job)."""
        for name, content in office_files(source):
            office_prepare(content, name)

    def render(
        self, source: str, data: dict[str, Any], limits: Limits = DEFAULT_LIMITS, **_: Any
    ) -> str:
        raise InvalidInput("An office conversion makes a PDF, not HTML; ask for its PDF.")
