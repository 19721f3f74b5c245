"""Page options a job may set, parsed and checked once at submit time."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from reports.errors import RenderError

PAGE_SIZES = ("A3", "A4", "A5", "Letter", "Legal")
ORIENTATIONS = ("portrait", "landscape")
_KNOWN = {"filename", "page_size", "orientation"}
_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._ -]+")


@dataclass(frozen=True)
class PdfOptions:
    filename: str = "report.pdf"
    page_size: str = "A4"
    orientation: str = "portrait"

    def as_dict(self) -> dict[str, str]:
        return {
            "filename": self.filename,
            "page_size": self.page_size,
            "orientation": self.orientation,
        }


def _clean_filename(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RenderError("options.filename must be a non-empty string.")
    name = _UNSAFE_FILENAME.sub("-", value.strip().replace("/", "-").replace("\\", "-"))
    name = name.strip(" .-")[:120] or "report"
    return name if name.lower().endswith(".pdf") else f"{name}.pdf"


def parse_options(raw: Any) -> PdfOptions:
    """Return validated options; raise RenderError naming the bad field otherwise."""
    if raw is None:
        return PdfOptions()
    if not isinstance(raw, dict):
        raise RenderError("options must be a JSON object.")
    unknown = sorted(set(raw) - _KNOWN)
    if unknown:
        raise RenderError(
            f"Unknown option(s): {', '.join(unknown)}; known: {', '.join(sorted(_KNOWN))}."
        )
    page_size = raw.get("page_size", "A4")
    sizes = {size.lower(): size for size in PAGE_SIZES}
    if not isinstance(page_size, str) or page_size.lower() not in sizes:
        raise RenderError(f"options.page_size must be one of: {', '.join(PAGE_SIZES)}.")
    orientation = raw.get("orientation", "portrait")
    if not isinstance(orientation, str) or orientation.lower() not in ORIENTATIONS:
        raise RenderError(f"options.orientation must be one of: {', '.join(ORIENTATIONS)}.")
    filename = _clean_filename(raw["filename"]) if "filename" in raw else "report.pdf"
    return PdfOptions(
        filename=filename, page_size=sizes[page_size.lower()], orientation=orientation.lower()
    )
