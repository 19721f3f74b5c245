"""Page options a job may set, parsed and checked once at submit time."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from rendering.engines.settings import EngineSettings, parse_engine_settings
from rendering.errors import InvalidInput
from rendering.option_objects import option_object_check
from rendering.postprocess.document_options import DocumentOptions, parse_document_options
from rendering.text_checks import clean_text

PAGE_SIZES = ("A3", "A4", "A5", "Letter", "Legal")
ORIENTATIONS = ("portrait", "landscape")
_TEXT_OPTIONS = {"title": 300, "author": 200, "subject": 300, "header": 300, "footer": 300}
_KNOWN = {"filename", "page_size", "orientation", "margin", "watermark", "test_mode", "pdf"}
_KNOWN |= {"engine", "flatten", "page_ranges"}
_KNOWN |= set(_TEXT_OPTIONS)
_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._ -]+")
_LENGTH = re.compile(r"^(\d{1,3}(?:\.\d{1,3})?)(mm|cm|in|pt)$")
_PAGE_RANGES = re.compile(r"^\d{1,5}(-\d{0,5})?(,\d{1,5}(-\d{0,5})?){0,49}$")
_MAX_MARGIN_CM = {"mm": 100.0, "cm": 10.0, "in": 4.0, "pt": 284.0}


@dataclass(frozen=True)
class PdfOptions:
    # Empty unless the submit chose one: the job then names its download (jobs.models).
    filename: str = ""
    page_size: str = "A4"
    orientation: str = "portrait"
    margin: str = ""
    title: str = ""
    author: str = ""
    subject: str = ""
    header: str = ""
    footer: str = ""
    watermark: str = ""
    # options.pdf: output profile, document metadata, e-invoice (rendering.postprocess).
    pdf: DocumentOptions | None = None
    # options.engine: the template engine's settings (rendering.engines.settings).
    engine: EngineSettings | None = None
    # A pdf-form template's fields drawn into the pages and the form dropped.
    flatten: bool = False
    # The pages a conversion keeps, "1-3,5" (office conversions: rendering.office).
    page_ranges: str = ""

    def as_dict(self) -> dict[str, Any]:
        # Only what was set, so jobs stored before an option existed read back the same.
        # The plain fields are text and booleans, so they are taken as they are (what
        # dataclasses.asdict's deep copy of each gave, without its walk into pdf and engine).
        options: dict[str, Any] = {
            name: value for name in _PLAIN_FIELDS if (value := getattr(self, name))
        }
        if self.pdf is not None:
            options["pdf"] = self.pdf.as_dict()
        if self.engine is not None:
            options["engine"] = self.engine.as_dict()
        return options


# PdfOptions's own fields but its nested ones, in their declared order.
_PLAIN_FIELDS = tuple(f.name for f in fields(PdfOptions) if f.name not in ("pdf", "engine"))


def _clean_filename(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("options.filename must be a non-empty string.")
    name = _UNSAFE_FILENAME.sub("-", value.strip().replace("/", "-").replace("\\", "-"))
    name = name.strip(" .-")[:120] or "report"
    return name if name.lower().endswith(".pdf") else f"{name}.pdf"


def _clean_margin(value: Any) -> str:
    parts = value.split() if isinstance(value, str) else []
    if not 1 <= len(parts) <= 4:
        raise InvalidInput(
            "options.margin must be 1 to 4 lengths in mm, cm, in or pt, e.g. '2cm' or '1.5cm 2cm'."
        )
    for part in parts:
        match = _LENGTH.match(part)
        if match is None:
            raise InvalidInput(
                f"options.margin: {part!r} is not a length in mm, cm, in or pt (e.g. '2cm')."
            )
        if float(match.group(1)) > _MAX_MARGIN_CM[match.group(2)]:
            raise InvalidInput(f"options.margin: {part} is larger than the page allows.")
    return " ".join(parts)


def _clean_text(name: str, value: Any, limit: int) -> str:
    return clean_text(f"options.{name}", value, limit)


def parse_options(raw: Any) -> PdfOptions:
    """Return validated options; raise RenderError naming the bad field otherwise."""
    if raw is None:
        return PdfOptions()
    option_object_check(raw, path="options", known=_KNOWN, what="option(s)")
    page_size = raw.get("page_size", "A4")
    sizes = {size.lower(): size for size in PAGE_SIZES}
    if not isinstance(page_size, str) or page_size.lower() not in sizes:
        raise InvalidInput(f"options.page_size must be one of: {', '.join(PAGE_SIZES)}.")
    orientation = raw.get("orientation", "portrait")
    if not isinstance(orientation, str) or orientation.lower() not in ORIENTATIONS:
        raise InvalidInput(f"options.orientation must be one of: {', '.join(ORIENTATIONS)}.")
    filename = _clean_filename(raw["filename"]) if "filename" in raw else ""
    texts = {
        name: _clean_text(name, raw[name], limit)
        for name, limit in _TEXT_OPTIONS.items()
        if raw.get(name) is not None
    }
    watermark = _clean_text("watermark", raw.get("watermark") or "", 40)
    test_mode = raw.get("test_mode", False)
    if not isinstance(test_mode, bool):
        raise InvalidInput("options.test_mode must be true or false.")
    if test_mode and not watermark:
        watermark = "TEST"
    flatten = raw.get("flatten", False)
    if not isinstance(flatten, bool):
        raise InvalidInput("options.flatten must be true or false.")
    page_ranges = raw.get("page_ranges") or ""
    if not isinstance(page_ranges, str) or (
        page_ranges and not _PAGE_RANGES.match(page_ranges.replace(" ", ""))
    ):
        raise InvalidInput("options.page_ranges: write the pages to keep as 1-3,5 (from 1).")
    return PdfOptions(
        filename=filename,
        page_ranges=page_ranges.replace(" ", ""),
        page_size=sizes[page_size.lower()],
        orientation=orientation.lower(),
        margin=_clean_margin(raw["margin"]) if raw.get("margin") else "",
        watermark=watermark,
        pdf=parse_document_options(raw.get("pdf")),
        engine=parse_engine_settings(raw.get("engine")),
        flatten=flatten,
        **texts,
    )
