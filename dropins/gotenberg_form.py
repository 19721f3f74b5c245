"""Gotenberg's Chromium form fields in our terms: paper, margins, header and footer, PDF/A,
assets inlined as data: URIs, Markdown files turned into HTML. Refuses what we cannot do."""

from __future__ import annotations

import base64
import html
import json
import mimetypes
import re
from collections.abc import Mapping
from typing import Any

import markdown

from rendering.error_codes import ErrorCode
from rendering.errors import InvalidInput, LimitExceeded
from rendering.limits import size_text

# Gotenberg's paper sizes are inches; ours are names. (width, height) in inches, portrait.
_PAPER_INCHES = {
    "A3": (11.7, 16.54),
    "A4": (8.27, 11.7),
    "A5": (5.83, 8.27),
    "Letter": (8.5, 11.0),
    "Legal": (8.5, 14.0),
}
_UNITS_PER_INCH = {"in": 1.0, "mm": 25.4, "cm": 2.54, "pt": 72.0, "px": 96.0, "pc": 6.0}
_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(in|mm|cm|pt|px|pc)?\s*$")
_DEFAULT_MARGIN_INCHES = 0.39  # Gotenberg's own default on every side
_PDFA = {"pdf/a-2b": "pdf/a-2b", "pdf/a-3b": "pdf/a-3b", "pdf/a-2u": "pdf/a-2u"}
_PDFA |= {"pdf/a-3u": "pdf/a-3u", "pdf/a-2a": "pdf/a-2a", "pdf/a-3a": "pdf/a-3a"}
# Fields we cannot honour: refused when sent with anything but Gotenberg's default.
_REFUSED_UNLESS = {
    "scale": ("1", "1.0"),
    "preferCssPageSize": ("false",),
    "omitBackground": ("false",),
    "singlePage": ("false",),
    "nativePageRanges": ("",),
    "waitForExpression": ("",),
    "emulatedMediaType": ("print", ""),
    "cookies": ("", "[]"),
    "extraHttpHeaders": ("", "{}"),
    "userAgent": ("",),
    "splitMode": ("",),
    "flatten": ("false",),
}
SPECIAL_FILES = ("index.html", "header.html", "footer.html")
_RUNNING_CLASSES = {"pageNumber": "{page}", "totalPages": "{pages}"}
# A running header or footer is a line of text and its styles: anything larger is refused
# before it is parsed (issue 42: 48 KB of `<style` took 2.5 s in a backtracking regex).
RUNNING_SOURCE_MAX_CHARS = 32 * 1024
_LEFT_OUT = ("style", "script", "head")
_TAG_NAME = re.compile(r"([A-Za-z][A-Za-z0-9-]*)")
_CLASS_ATTR = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
_TO_HTML = re.compile(r"""\{\{\s*toHTML\s+(?:"([^"]+)"|'([^']+)'|`([^`]+)`)\s*\}\}""")


def _inches(field: str, raw: str) -> float:
    match = _LENGTH.match(raw)
    if match is None:
        raise InvalidInput(f"{field}: {raw!r} is not a length (inches, or with in/mm/cm/pt/px).")
    return float(match.group(1)) / _UNITS_PER_INCH[match.group(2) or "in"]


def form_flag(field: str, raw: str) -> bool:
    if raw.strip().lower() not in ("true", "false", "1", "0"):
        raise InvalidInput(f"{field} must be true or false, not {raw!r}.")
    return raw.strip().lower() in ("true", "1")


def form_refused_check(fields: Mapping[str, str], refused: Mapping[str, tuple[str, ...]]) -> None:
    """InvalidInput for the first field of `refused` (name -> the values it may have) sent
    with another value: a Gotenberg option the adapter cannot honour is refused, not ignored."""
    for name, defaults in refused.items():
        value = (fields.get(name) or "").strip()
        if value and value not in defaults:
            raise InvalidInput(f"{name}={value} is not supported by this Gotenberg adapter.")


def _paper(fields: Mapping[str, str]) -> tuple[str, bool]:
    """(page_size, turned): the named size the width and height are (either way round)."""
    width = _inches("paperWidth", fields.get("paperWidth") or "8.5")
    height = _inches("paperHeight", fields.get("paperHeight") or "11")
    for name, (w, h) in _PAPER_INCHES.items():
        if abs(w - width) < 0.06 and abs(h - height) < 0.06:
            return name, False
        if abs(h - width) < 0.06 and abs(w - height) < 0.06:
            return name, True
    sizes = ", ".join(f"{n} ({w}x{h} in)" for n, (w, h) in _PAPER_INCHES.items())
    raise InvalidInput(
        f"paperWidth {width:g} in x paperHeight {height:g} in is not a paper size we print; "
        f"use one of: {sizes}."
    )


def _margin(fields: Mapping[str, str]) -> str:
    sides = []
    for side in ("marginTop", "marginRight", "marginBottom", "marginLeft"):
        raw = fields.get(side)
        inches = _inches(side, raw) if raw else _DEFAULT_MARGIN_INCHES
        sides.append(f"{round(inches * 25.4, 2):g}mm")
    return " ".join(sides)


def _tag_end(source: str, lower: str, start: int, name: str, missing: set[str]) -> int:
    """Where the text after `</name ...>` starts, from `start`; len(source) if it is not
    closed. A name found missing once is never searched again (positions only grow), so
    many unclosed `<style` cost one scan, not one each."""
    if name in missing:
        return -1
    found = lower.find(f"</{name}", start)
    if found < 0:
        missing.add(name)
        return -1
    close = source.find(">", found)
    return len(source) if close < 0 else close + 1


def running_text(source: str) -> str:
    """A Gotenberg header.html/footer.html (or jsreport's headerTemplate) as our running
    text: its words, with the pageNumber and totalPages elements as {page} and {pages}
    (other classes are dropped), style, script and head left out. Capped before parsing
    and read in one pass (str.find moving forward only): linear in its size."""
    if len(source) > RUNNING_SOURCE_MAX_CHARS:
        raise InvalidInput(
            f"header.html/footer.html: {len(source):,} characters; a running header or "
            f"footer is at most {RUNNING_SOURCE_MAX_CHARS:,} (its text at most 300)."
        )
    lower, end = source.lower(), len(source)
    words: list[str] = []
    missing: set[str] = set()
    position = 0
    while position < end:
        opening = source.find("<", position)
        if opening < 0:
            words.append(source[position:])
            break
        words.append(source[position:opening])
        closing = source.find(">", opening + 1)
        if closing < 0:  # an unclosed tag: nothing after it is text
            break
        tag, position = source[opening + 1 : closing], closing + 1
        words.append(" ")
        name_match = _TAG_NAME.match(tag)
        if name_match is None:  # a closing tag, a comment, a doctype
            continue
        name = name_match.group(1).lower()
        class_match = _CLASS_ATTR.search(tag)
        classes = "".join(class_match.groups("")).split() if class_match else []
        placeholder = next((p for c, p in _RUNNING_CLASSES.items() if c in classes), None)
        if placeholder is not None or name in _LEFT_OUT:
            words.append(placeholder or " ")
            after = (
                -1
                if tag.rstrip().endswith("/")
                else _tag_end(source, lower, position, name, missing)
            )
            position = after if after >= 0 else position
    text = " ".join(html.unescape("".join(words)).split())
    if len(text) > 300:
        raise InvalidInput("header.html/footer.html: the running text is over 300 characters.")
    return text


def metadata_options(raw: str) -> dict[str, str]:
    try:
        metadata = json.loads(raw)
    except ValueError:
        raise InvalidInput("metadata must be a JSON object.") from None
    if not isinstance(metadata, dict):
        raise InvalidInput("metadata must be a JSON object.")
    chosen = {key.lower(): value for key, value in metadata.items() if isinstance(value, str)}
    return {name: chosen[name] for name in ("title", "author", "subject") if chosen.get(name)}


def form_options(fields: Mapping[str, str]) -> tuple[dict[str, Any], str | None]:
    """(our options, the renderer when the form needs another than Chromium) from the
    form's fields; InvalidInput naming a field we refuse."""
    form_refused_check(fields, _REFUSED_UNLESS)
    page_size, turned = _paper(fields)
    landscape = form_flag("landscape", fields.get("landscape") or "false")
    options: dict[str, Any] = {
        "page_size": page_size,
        "orientation": "landscape" if landscape != turned else "portrait",
        "margin": _margin(fields),
    }
    if fields.get("metadata"):
        options |= metadata_options(fields["metadata"])
    if fields.get("printBackground"):
        form_flag("printBackground", fields["printBackground"])  # backgrounds always print
    renderer = None
    profile = _profile(fields)
    if profile:
        options["pdf"] = {"profile": profile}
        renderer = "weasyprint"  # the renderer that writes PDF/A and PDF/UA
    return options, renderer


def _profile(fields: Mapping[str, str]) -> str:
    pdfa = (fields.get("pdfa") or "").strip().lower()
    pdfua = form_flag("pdfua", fields.get("pdfua") or "false")
    if pdfa and pdfa not in _PDFA:
        raise InvalidInput(
            f"pdfa={fields['pdfa']} is not offered; use one of: "
            f"{', '.join(p.upper() for p in _PDFA)}."
        )
    if pdfa and pdfua:
        # Archival and accessible: the tagged level "a" of the same PDF/A part.
        return f"{_PDFA[pdfa][:-1]}a"
    return _PDFA.get(pdfa, "") or ("pdf/ua-1" if pdfua else "")


def form_warnings(fields: Mapping[str, str]) -> list[str]:
    """What the form's pdfa/pdfua change that a Gotenberg caller would not expect: the
    renderer (WeasyPrint, not Chromium) and, with both, the profile made."""
    profile = _profile(fields)
    if not profile:
        return []
    asked = " with ".join(
        f"{name}={fields[name].strip()}" for name in ("pdfa", "pdfua") if fields.get(name)
    )
    warnings = [
        f"{asked}: rendered with WeasyPrint, not Chromium (only WeasyPrint writes PDF/A and "
        "PDF/UA here): the page's JavaScript does not run and some Chromium layout differs "
        "(e.g. an <img width> attribute is ignored: size images in CSS)."
    ]
    if (fields.get("pdfa") or "").strip() and form_flag("pdfua", fields.get("pdfua") or "false"):
        warnings.append(
            f"pdfa with pdfua=true: made {profile.upper()}, the PDF/A level that is tagged for "
            "accessibility; the file claims that one profile, not PDF/UA-1 as well."
        )
    return warnings


def data_uri(name: str, content: bytes) -> str:
    mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(content).decode('ascii')}"


def assets_inline(source: str, assets: Mapping[str, bytes], *, max_bytes: int) -> str:
    """The page with each reference to an uploaded file (src, href, CSS url()) replaced by
    its data: URI: our renderers do not serve files, and their network is closed. One pass
    over the page, stopped with a 413 as soon as the result would pass `max_bytes` (the
    template limit the submit applies anyway): an asset referenced a thousand times is
    not built a thousand times first."""
    if not assets:
        return source
    uris = {name: data_uri(name, content) for name, content in assets.items()}
    names = "|".join(re.escape(name) for name in sorted(uris, key=len, reverse=True))
    reference = re.compile(rf"""(["'(])(?:\./)?({names})(["')])""")
    budget = max_bytes - len(source.encode("utf-8"))

    def inlined(match: re.Match[str]) -> str:
        nonlocal budget
        uri = uris[match.group(2)]
        budget -= len(uri) - len(match.group(0)) + 2
        if budget < 0:
            raise LimitExceeded(
                f"index.html with its assets inlined is over the {size_text(max_bytes)} a "
                "template may be; reference each large asset once, or send smaller ones.",
                code=ErrorCode.TOO_LARGE,
                http_status=413,
            )
        return f"{match.group(1)}{uri}{match.group(3)}"

    return reference.sub(inlined, source)


def markdown_inline(source: str, files: Mapping[str, bytes]) -> str:
    """index.html with each {{ toHTML "file.md" }} replaced by that file as HTML."""

    def converted(match: re.Match[str]) -> str:
        name = next(group for group in match.groups() if group)
        if name not in files:
            raise InvalidInput(f'index.html asks for toHTML "{name}", which was not uploaded.')
        text = files[name].decode("utf-8", errors="replace")
        html: str = markdown.markdown(text, extensions=["tables", "fenced_code"])
        return html

    return _TO_HTML.sub(converted, source)
