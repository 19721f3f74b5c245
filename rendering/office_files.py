"""Office files checked before LibreOffice sees them: a known format, a zip whose declared
sizes and entry count are bounded (a zip bomb is refused unopened), no XML entity
declarations (entity expansion), and HTML whose remote references are cut off."""

from __future__ import annotations

import io
import re
import zipfile

import markdown

from rendering.errors import InvalidInput
from rendering.limits import size_text

ZIP_FORMATS = ("docx", "xlsx", "pptx", "odt", "ods", "odp")
FORMATS = (*ZIP_FORMATS, "rtf", "txt", "html", "md")
MAX_ENTRIES = 2000
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
# Deflate packs ordinary documents 2-20x (repetitive ones a few hundred times); a bomb
# packs hundreds to millions of times. Only large entries are held to it: a small one
# cannot unpack to much, whatever its ratio.
MAX_RATIO = 200
RATIO_FROM_BYTES = 16 * 1024 * 1024
_ENTITY = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_HTML_ENTITY = re.compile(rb"<!\s*ENTITY", re.IGNORECASE)
# An HTML page's references to anything outside it (LibreOffice would fetch them): in
# attributes, CSS url() and @import.
_REMOTE = re.compile(
    r"""((?:\s(?:src|href|background|data|poster|srcset|action)\s*=\s*|url\(|@import\s)\s*"""
    r"""["']?)\s*(?:https?:|ftp:|file:|//)""",
    re.IGNORECASE,
)


def office_format(filename: str) -> str:
    """The format a file's extension names; InvalidInput naming the accepted ones."""
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    if extension == "htm":
        extension = "html"
    if extension == "markdown":
        extension = "md"
    if extension not in FORMATS:
        raise InvalidInput(
            f"{filename or 'The file'}: not a format we convert; send one of: "
            f"{', '.join(FORMATS)} (by its file name's extension)."
        )
    return extension


def zip_check(content: bytes, filename: str) -> None:
    """Declared sizes, ratios and entry count bounded, then every XML part read (within
    those bounds) for DOCTYPE and ENTITY declarations."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, ValueError):
        raise InvalidInput(f"{filename}: not a valid {office_format(filename)} file.") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_ENTRIES:
            raise InvalidInput(f"{filename}: {len(entries)} entries; at most {MAX_ENTRIES}.")
        unpacked = sum(entry.file_size for entry in entries)
        if unpacked > MAX_UNPACKED_BYTES:
            raise InvalidInput(
                f"{filename}: unpacks to {size_text(unpacked)}; at most "
                f"{size_text(MAX_UNPACKED_BYTES)} (a zip bomb is not opened)."
            )
        for entry in entries:
            large = entry.file_size > RATIO_FROM_BYTES
            if large and entry.file_size > MAX_RATIO * max(entry.compress_size, 1):
                ratio = entry.file_size // max(entry.compress_size, 1)
                raise InvalidInput(
                    f"{filename}: {entry.filename} is packed {ratio} times; at most "
                    f"{MAX_RATIO} (a zip bomb is not opened)."
                )
        for entry in entries:
            if entry.filename.endswith((".xml", ".rels")):
                _xml_check(archive, entry, filename)


def _xml_check(archive: zipfile.ZipFile, entry: zipfile.ZipInfo, filename: str) -> None:
    with archive.open(entry) as part:
        # One more byte than declared: a part that lies about its size is caught too.
        data = part.read(entry.file_size + 1)
    if len(data) > entry.file_size:
        raise InvalidInput(f"{filename}: {entry.filename} is larger than its zip entry says.")
    if _ENTITY.search(data):
        raise InvalidInput(
            f"{filename}: {entry.filename} declares a DOCTYPE or ENTITY; office files do not "
            "need one, and entity expansion is refused."
        )


def office_prepare(content: bytes, filename: str) -> tuple[bytes, str]:
    """The file as LibreOffice gets it and its extension: checked, Markdown as HTML, an
    HTML page without references outside it; InvalidInput for a hostile file."""
    kind = office_format(filename)
    if kind in ZIP_FORMATS:
        zip_check(content, filename)
        return content, kind
    if kind == "md":
        text = content.decode("utf-8", errors="replace")
        page = markdown.markdown(text, extensions=["tables", "fenced_code"])
        content, kind = f"<html><body>{page}</body></html>".encode(), "html"
    if _HTML_ENTITY.search(content) or (kind == "rtf" and b"<!ENTITY" in content.upper()):
        raise InvalidInput(f"{filename}: declares an ENTITY; entity expansion is refused.")
    if kind == "html":
        page = content.decode("utf-8", errors="replace")
        content = _REMOTE.sub(r"\1about:blank#", page).encode()
    return content, kind
