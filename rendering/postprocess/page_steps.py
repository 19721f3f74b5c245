"""The steps that rework a PDF's pages and document information, parsed and run:
flatten (form fields drawn into the pages), rotate, split (keep selected pages) and
metadata (set the document information). They serve the API's `steps` and Gotenberg's
PDF-engine routes alike."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rendering.errors import ApplicationError, InvalidInput, RenderError
from rendering.postprocess.checks import Check

if TYPE_CHECKING:
    import pikepdf

# pikepdf is imported by the functions that apply a step: the steps' parsing, imported at
# every process start, needs none of it. A worker imports it before its pool forks
# (rendering.preload).

PAGE_STEP_TYPES = ("flatten", "rotate", "split", "metadata")
ANGLES = (90, 180, 270)
_RANGE = re.compile(r"^\s*(\d*)\s*(-?)\s*(\d*)\s*$")
METADATA_TEXTS = {"title": 300, "author": 200, "subject": 300, "creator": 200, "producer": 200}
METADATA_DATES = ("creation_date", "modification_date")
_DOCINFO = {
    "title": "/Title",
    "author": "/Author",
    "subject": "/Subject",
    "creator": "/Creator",
    "producer": "/Producer",
    "keywords": "/Keywords",
    "creation_date": "/CreationDate",
    "modification_date": "/ModDate",
}
Fail = Callable[[str], ApplicationError]
PageStepParser = Callable[[dict[str, Any], Fail], dict[str, Any]]


def page_ranges_check(text: Any, field: str, fail: Fail) -> str:
    """A page selection such as "1-3,5,8-" (pages counted from 1; "8-" runs to the end)."""
    if not isinstance(text, str) or len(text) > 200:
        raise fail(f'{field} must be page ranges such as "1-3,5,8-".')
    for part in text.split(","):
        match = _RANGE.match(part)
        if match is None or not (match.group(1) or match.group(3)) or part.strip() == "-":
            raise fail(f'{field}: {part.strip()!r} is not a page or range (e.g. "1-3,5,8-").')
        first, dash, last = match.groups()
        if (first and int(first) == 0) or (last and int(last) == 0):
            raise fail(f"{field}: pages are counted from 1.")
        if first and last and dash and int(last) < int(first):
            raise fail(f"{field}: {part.strip()!r} runs backwards.")
        if last and not dash:
            raise fail(f'{field}: {part.strip()!r} is not a page or range (e.g. "1-3,5,8-").')
    return ",".join(part.replace(" ", "") for part in text.split(","))


def page_numbers(ranges: str, count: int) -> list[int]:
    """The pages (from 1) a selection names, in its order, those past `count` left out."""
    pages: list[int] = []
    for part in ranges.split(","):
        match = _RANGE.match(part)
        if match is None:  # checked at parse time
            continue
        first, dash, last = match.groups()
        start = int(first) if first else 1
        end = (int(last) if last else count) if dash else start
        pages += range(start, min(end, count) + 1)
    return pages


def _fields(raw: dict[str, Any], allowed: set[str], fail: Fail) -> None:
    if unknown := sorted(set(raw) - allowed - {"type"}):
        known = ", ".join(sorted(allowed)) or "none"
        raise fail(f"unknown field(s) {', '.join(unknown)}; known: {known}.")


def parse_flatten(raw: dict[str, Any], fail: Fail) -> dict[str, Any]:
    _fields(raw, set(), fail)
    return {"type": "flatten"}


def parse_rotate(raw: dict[str, Any], fail: Fail) -> dict[str, Any]:
    _fields(raw, {"angle", "pages"}, fail)
    angle = raw.get("angle")
    if isinstance(angle, bool) or angle not in ANGLES:
        raise fail("rotate.angle must be 90, 180 or 270 (degrees clockwise).")
    pages = raw.get("pages") or ""
    step: dict[str, Any] = {"type": "rotate", "angle": angle}
    if pages:
        step["pages"] = page_ranges_check(pages, "rotate.pages", fail)
    return step


def parse_split(raw: dict[str, Any], fail: Fail) -> dict[str, Any]:
    _fields(raw, {"pages"}, fail)
    if not raw.get("pages"):
        raise fail('split.pages names the pages to keep, e.g. "1-3,5".')
    return {"type": "split", "pages": page_ranges_check(raw["pages"], "split.pages", fail)}


def parse_metadata(raw: dict[str, Any], fail: Fail) -> dict[str, Any]:
    _fields(raw, {*METADATA_TEXTS, *METADATA_DATES, "keywords"}, fail)
    step: dict[str, Any] = {"type": "metadata"}
    for name, limit in METADATA_TEXTS.items():
        value = raw.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > limit:
            raise fail(f"metadata.{name} must be a string of up to {limit} characters.")
        step[name] = re.sub(r"[\x00-\x1f\x7f]", " ", value)
    for name in METADATA_DATES:
        if raw.get(name) is None:
            continue
        try:
            datetime.fromisoformat(str(raw[name]))
        except ValueError:
            raise fail(f"metadata.{name} must be an ISO 8601 date and time.") from None
        step[name] = str(raw[name])
    keywords = raw.get("keywords")
    if isinstance(keywords, str):
        keywords = [k.strip() for k in keywords.split(",") if k.strip()]
    if keywords is not None:
        if not isinstance(keywords, list) or len(keywords) > 50:
            raise fail("metadata.keywords must be a list of up to 50 strings.")
        if not all(isinstance(k, str) and len(k) <= 100 for k in keywords):
            raise fail("metadata.keywords must be strings of up to 100 characters.")
        step["keywords"] = keywords
    if len(step) == 1:
        raise fail(
            "metadata sets at least one of: "
            f"{', '.join([*METADATA_TEXTS, *METADATA_DATES, 'keywords'])}."
        )
    return step


def _open(content: bytes) -> pikepdf.Pdf:
    import pikepdf

    try:
        return pikepdf.open(io.BytesIO(content))
    except pikepdf.PdfError:
        raise RenderError("The PDF cannot be read for this step.") from None


def _save(pdf: pikepdf.Pdf) -> bytes:
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def flatten_apply(content: bytes) -> tuple[bytes, Check]:
    with _open(content) as pdf:
        # QPDF draws each field's value into its page, then drops the form.
        pdf.generate_appearance_streams()
        pdf.flatten_annotations("all")
        if "/AcroForm" in pdf.Root:
            del pdf.Root["/AcroForm"]
        out = _save(pdf)
    with _open(out) as pdf:
        widgets = sum(
            1
            for page in pdf.pages
            for annot in page.get("/Annots", [])
            if annot.get("/Subtype") == "/Widget"
        )
    return out, Check("flatten", widgets == 0, f"{widgets} form field widget(s) left")


def rotate_apply(content: bytes, step: dict[str, Any]) -> tuple[bytes, Check]:
    with _open(content) as pdf:
        count = len(pdf.pages)
        chosen = page_numbers(step["pages"], count) if step.get("pages") else range(1, count + 1)
        chosen = sorted(set(chosen))
        for number in chosen:
            pdf.pages[number - 1].rotate(step["angle"], relative=True)
        out = _save(pdf)
    return out, Check(
        "rotate", True, f"{len(chosen)} of {count} page(s) turned {step['angle']} degrees"
    )


def split_apply(content: bytes, step: dict[str, Any]) -> tuple[bytes, Check]:
    import pikepdf

    with _open(content) as pdf:
        count = len(pdf.pages)
        kept = page_numbers(step["pages"], count)
        if not kept:
            raise InvalidInput(
                f"split.pages {step['pages']!r} names no page of this {count}-page PDF."
            )
        with pikepdf.new() as out_pdf:
            for number in kept:
                out_pdf.pages.append(pdf.pages[number - 1])
            out = _save(out_pdf)
    return out, Check("split", True, f"kept {len(kept)} of {count} page(s): {step['pages']}")


def metadata_apply(content: bytes, step: dict[str, Any]) -> tuple[bytes, Check]:
    from pikepdf.models.metadata import encode_pdf_date

    with _open(content) as pdf:
        for name, key in _DOCINFO.items():
            if name not in step:
                continue
            value = step[name]
            if name in METADATA_DATES:
                value = encode_pdf_date(datetime.fromisoformat(value))
            elif name == "keywords":
                value = ", ".join(value)
            pdf.docinfo[key] = value
        out = _save(pdf)
    with _open(out) as pdf:
        title = str(pdf.docinfo.get("/Title", ""))
    wanted = step.get("title")
    set_names = [name for name in _DOCINFO if name in step]
    return out, Check("metadata", wanted is None or title == wanted, f"set: {', '.join(set_names)}")
