"""Gotenberg 8's PDF-engine form fields in our terms: the uploaded PDFs in Gotenberg's
order and the steps their fields ask for (split, rotate, watermark, stamp, metadata,
encrypt). Refuses, naming the field, what we cannot do."""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dropins.gotenberg_form import form_flag
from rendering.errors import InvalidInput
from rendering.pdf_files import MAX_PDF_FILES
from rendering.postprocess.page_steps import page_numbers, page_ranges_check

# Gotenberg's metadata keys (ExifTool's names) and our metadata step's fields.
_METADATA_KEYS = {
    "Title": "title",
    "Author": "author",
    "Subject": "subject",
    "Creator": "creator",
    "Producer": "producer",
    "Keywords": "keywords",
    "CreationDate": "creation_date",
    "ModDate": "modification_date",
}
# Fields every route takes (the client sends them), refused unless empty or the default.
_REFUSED_UNLESS = {"pdfa": ("",), "pdfua": ("", "false")}
# Fields every route takes and acts on (dropins.gotenberg_download fetches the files).
COMMON_FIELDS = ("downloadFrom",)
# Files that are not PDFs to work on: a stamp's or watermark's image or PDF, attachments.
LAYER_FIELDS = ("stamp", "watermark")
NON_PDF_FIELDS = (*LAYER_FIELDS, "embeds")
# A layer's source (stampSource, watermarkSource) and the step field its file goes in.
_LAYER_SOURCES = {"image": "image_base64", "pdf": "pdf_base64"}


def pdf_uploads(files: list[tuple[str, str, bytes]]) -> list[tuple[str, bytes]]:
    """(name, bytes) of the PDFs among (form field, file name, bytes), sorted by file
    name as Gotenberg does; the stamp's and watermark's files are not among them.
    InvalidInput for a file that is not a PDF, attachments, or too many files."""
    if any(field == "embeds" for field, _, _ in files):
        raise InvalidInput(
            "File field embeds is not supported by this adapter: attachments are not taken "
            "here (the API's attach step takes them)."
        )
    pdfs = sorted(
        ((name, content) for field, name, content in files if field not in LAYER_FIELDS),
        key=lambda item: item[0],
    )
    if not pdfs:
        raise InvalidInput("Upload at least one PDF file (form field files).")
    if len(pdfs) > MAX_PDF_FILES:
        raise InvalidInput(f"{len(pdfs)} files: send at most {MAX_PDF_FILES} PDFs at once.")
    for name, content in pdfs:
        # Only the signature is read here; the PDF itself is parsed by the worker.
        if not content.startswith(b"%PDF-"):
            raise InvalidInput(f"{name} is not a PDF (it does not start with %PDF-).")
    return pdfs


def layer_files(files: list[tuple[str, str, bytes]]) -> dict[str, tuple[str, bytes]]:
    """{"stamp" or "watermark": (file name, bytes)} of the files sent under those fields
    (one each at most), for stampSource or watermarkSource image or pdf."""
    found: dict[str, tuple[str, bytes]] = {}
    for field, name, content in files:
        if field in LAYER_FIELDS:
            if field in found:
                raise InvalidInput(f"Send one file under {field}, not several.")
            found[field] = (name, content)
    return found


def fields_check(fields: Mapping[str, str], known: tuple[str, ...]) -> None:
    if unknown := sorted(set(fields) - set(known) - set(_REFUSED_UNLESS) - set(COMMON_FIELDS)):
        raise InvalidInput(
            f"Unknown form field(s) {', '.join(unknown)} for this route; it takes: "
            f"{', '.join(sorted(known))}."
        )
    for name, defaults in _REFUSED_UNLESS.items():
        value = (fields.get(name) or "").strip()
        if value.lower() not in defaults:
            raise InvalidInput(f"{name}={value} is not supported by this Gotenberg adapter.")


def flatten_wanted(fields: Mapping[str, str]) -> bool:
    return form_flag("flatten", fields.get("flatten") or "false")


def metadata_step(raw: str) -> dict[str, Any]:
    try:
        metadata = json.loads(raw)
    except ValueError:
        metadata = None
    if not isinstance(metadata, dict) or not metadata:
        raise InvalidInput('metadata must be a JSON object such as {"Title": "Q3", "Author": "…"}.')
    if unknown := sorted(set(metadata) - set(_METADATA_KEYS)):
        raise InvalidInput(
            f"metadata: {', '.join(unknown)} cannot be written here; use: "
            f"{', '.join(_METADATA_KEYS)}."
        )
    return {"type": "metadata", **{_METADATA_KEYS[key]: v for key, v in metadata.items()}}


@dataclass(frozen=True)
class SplitAsk:
    """Gotenberg's split fields: intervals of `span` pages, or the pages `span` names,
    unified into one file or a file per page."""

    mode: str
    span: str
    unify: bool

    def ranges(self, count: int) -> list[str]:
        """The page ranges of each file a `count`-page PDF splits into."""
        if self.mode == "intervals":
            size = int(self.span)
            starts = range(1, count + 1, size)
            return [f"{start}-{min(start + size - 1, count)}" for start in starts]
        return [str(page) for page in page_numbers(self.span, count)]


def split_ask(fields: Mapping[str, str]) -> SplitAsk:
    mode = (fields.get("splitMode") or "").strip()
    span = (fields.get("splitSpan") or "").strip()
    unify = form_flag("splitUnify", fields.get("splitUnify") or "false")
    if mode not in ("intervals", "pages"):
        raise InvalidInput("splitMode must be intervals or pages.")
    if mode == "intervals" and not (span.isdigit() and int(span) > 0):
        raise InvalidInput("splitSpan must be a whole number of pages (1 or more) for intervals.")
    if mode == "pages":
        page_ranges_check(span, "splitSpan", InvalidInput)
    return SplitAsk(mode=mode, span=span, unify=unify and mode == "pages")


def _layer_step(
    fields: Mapping[str, str],
    prefix: str,
    layer: str,
    files: Mapping[str, tuple[str, bytes]],
) -> dict[str, Any] | None:
    source = (fields.get(f"{prefix}Source") or "").strip()
    text = fields.get(f"{prefix}Expression") or ""
    if not source and not text and prefix not in files:
        return None
    if source not in ("", "text", *_LAYER_SOURCES):
        raise InvalidInput(
            f"{prefix}Source={source} is not supported here; use text, image or pdf."
        )
    if (fields.get(f"{prefix}Pages") or "").strip():
        raise InvalidInput(f"{prefix}Pages is not supported: the {prefix} goes on every page.")
    step: dict[str, Any]
    if source in _LAYER_SOURCES:
        step = {"type": "stamp", _LAYER_SOURCES[source]: _layer_file(prefix, source, text, files)}
    elif prefix in files:
        raise InvalidInput(
            f"A file was sent under {prefix}: send {prefix}Source=image or pdf with it."
        )
    else:
        step = {"type": "stamp", "text": text}
    return step | {"layer": "under"} if layer == "under" else step


def _layer_file(
    prefix: str, source: str, expression: str, files: Mapping[str, tuple[str, bytes]]
) -> str:
    """The base64 of the file a stamp or watermark of `source` image or pdf draws: the
    one sent under the `prefix` field (Gotenberg's {prefix}Expression names it)."""
    if prefix not in files:
        raise InvalidInput(
            f"{prefix}Source={source}: upload the {source} under the form field {prefix}."
        )
    name, content = files[prefix]
    wanted = expression.strip()
    # Gotenberg's clients upload it under the field's own name; another name must match.
    if wanted and wanted not in (name, prefix):
        raise InvalidInput(
            f"{prefix}Expression={wanted} names no file sent under {prefix} (it holds {name})."
        )
    if source == "pdf" and not content.startswith(b"%PDF-"):
        raise InvalidInput(f"{prefix}Source=pdf: {name} is not a PDF.")
    if source == "image" and content.startswith(b"%PDF-"):
        raise InvalidInput(f"{prefix}Source=image: {name} is a PDF; send {prefix}Source=pdf.")
    return base64.b64encode(content).decode("ascii")


def steps_from_fields(
    fields: Mapping[str, str], files: Mapping[str, tuple[str, bytes]] | None = None
) -> list[dict[str, Any]]:
    """The steps the form's fields ask for after a split, in Gotenberg's order (the step
    parser checks each one again and names the bad field); `files` holds the stamp's and
    watermark's files (layer_files)."""
    steps: list[dict[str, Any]] = []
    if angle := (fields.get("rotateAngle") or "").strip():
        if not angle.lstrip("-").isdigit():
            raise InvalidInput("rotateAngle must be 90, 180 or 270.")
        rotate: dict[str, Any] = {"type": "rotate", "angle": int(angle) % 360}
        if pages := (fields.get("rotatePages") or "").strip():
            rotate["pages"] = pages
        steps.append(rotate)
    for prefix, layer in (("watermark", "under"), ("stamp", "over")):
        if (step := _layer_step(fields, prefix, layer, files or {})) is not None:
            steps.append(step)
    if (fields.get("metadata") or "").strip():
        steps.append(metadata_step(fields["metadata"]))
    user, owner = fields.get("userPassword") or "", fields.get("ownerPassword") or ""
    if owner and not 6 <= len(owner) <= 127:
        raise InvalidInput("ownerPassword must be 6 to 127 characters.")
    if owner and owner == user:
        raise InvalidInput("ownerPassword must differ from userPassword.")
    if len(user) > 127:
        raise InvalidInput("userPassword must be at most 127 characters.")
    if user or owner:
        # Gotenberg takes either password alone; our encrypt step needs an owner password
        # that differs from the user's: a lone user password gets a random one nobody holds.
        owner = owner or secrets.token_urlsafe(24)
        steps.append({"type": "encrypt", "user_password": user, "owner_password": owner})
    return steps
