"""The full HTML document WeasyPrint and Chromium lay out: the service's defaults (bundled
fonts, a 2 cm margin), then the template's own CSS, then the job's options (page size and
margins win over the template's); xhtml2pdf's page-break and contents tags become CSS."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from rendering.font_fallback import css_font_fallback, html_font_fallback
from rendering.fonts import DEFAULT_STACK, fonts_css
from rendering.options import PdfOptions

DEFAULT_MARGIN = "2cm"
RUNNING_STYLE = f"font-family: {DEFAULT_STACK}; font-size: 8pt; color: #52606d;"
_DOCTYPE = re.compile(r"\s*<!doctype\b", re.IGNORECASE)
_HEAD_CLOSE = re.compile(r"</head\s*>", re.IGNORECASE)
_HEAD_OPEN = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_HTML_OPEN = re.compile(r"<html\b[^>]*>", re.IGNORECASE)
_PAGE_BREAK = re.compile(r"<pdf:nextpage\b[^>]*?/?>(?:\s*</pdf:nextpage\s*>)?", re.IGNORECASE)
_TOC = re.compile(r"<pdf:toc\b[^>]*?/?>(?:\s*</pdf:toc\s*>)?", re.IGNORECASE)
_HEADING = re.compile(r"<h([1-6])\b([^>]*)>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_ID = re.compile(r"""\bid\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
# Contents entries: the page number is drawn by the renderer (WeasyPrint's target-counter)
# or written in by a second pass (Chromium), so the markup is the same for both.
_TOC_CSS = """
.rs-page-break { break-after: page; height: 0; }
.rs-toc { margin: 0 0 1em; }
.rs-toc-entry { display: flex; align-items: flex-end; margin: 0.15em 0; }
.rs-toc-entry a { color: inherit; text-decoration: none; }
.rs-toc-entry .rs-toc-fill { flex: 1; height: 0.8em; border-bottom: 1px dotted #9aa5b1;
  margin: 0 0.4em 0.25em; }
.rs-toc-l2 { padding-left: 1.2em; } .rs-toc-l3 { padding-left: 2.4em; }
.rs-toc-l4, .rs-toc-l5, .rs-toc-l6 { padding-left: 3.6em; }
"""
TOC_TARGET_COUNTER = ".rs-toc-page::after { content: target-counter(attr(data-href), page); }"


def headings(html: str) -> list[tuple[int, str, str]]:
    """(level, id, text) of each h1-h6, in document order, after toc_anchor()."""
    found = []
    for match in _HEADING.finditer(html):
        anchor = _ID.search(match.group(2))
        text = html_lib.unescape(_TAG.sub("", match.group(3))).strip()
        if anchor and text:
            found.append((int(match.group(1)), anchor.group(1), text))
    return found


def toc_anchor(html: str) -> str:
    """Give every heading an id, so contents entries can point at it."""
    counter = iter(range(1, 1_000_000))

    def add_id(match: re.Match[str]) -> str:
        if _ID.search(match.group(2)):
            return match.group(0)
        level, attrs, inner = match.group(1), match.group(2), match.group(3)
        return f'<h{level}{attrs} id="rs-h{next(counter)}">{inner}</h{level}>'

    return _HEADING.sub(add_id, html)


def toc_html(html: str, pages: Mapping[str, int] | None = None) -> str:
    """The contents of `html`'s headings; `pages` maps heading ids to page numbers when
    the renderer cannot compute them itself."""
    entries = []
    # The link sits in a span: WeasyPrint makes no link of an <a> that is a flex item.
    for level, anchor, text in headings(html):
        page = "" if pages is None else str(pages.get(anchor, ""))
        entries.append(
            f'<div class="rs-toc-entry rs-toc-l{level}"><span class="rs-toc-text">'
            f'<a href="#{html_lib.escape(anchor)}">{html_lib.escape(text)}</a></span>'
            f'<span class="rs-toc-fill"></span>'
            f'<span class="rs-toc-page" data-href="#{html_lib.escape(anchor)}">{page}</span></div>'
        )
    return f'<div class="rs-toc">{"".join(entries)}</div>'


def has_toc(html: str) -> bool:
    return _TOC.search(html) is not None


def css_string(text: str) -> str:
    """`text` as a CSS string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\A ")
    return f'"{escaped}"'


def running_content(text: str) -> str:
    """A header/footer option as a CSS `content` value: {page} and {pages} are counters."""
    parts = []
    for index, chunk in enumerate(re.split(r"(\{pages?\})", text)):
        if index % 2:
            parts.append("counter(page)" if chunk == "{page}" else "counter(pages)")
        elif chunk:
            parts.append(css_string(chunk))
    return " ".join(parts) or '""'


def html_document(
    *,
    body_html: str,
    css: str,
    options: PdfOptions,
    font_url: Callable[[Path], str] | None,
    page_css: str = "",
    toc_pages: Mapping[str, int] | None = None,
    toc_source: str | None = None,
) -> str:
    """A complete document; `page_css` goes last (the renderer's running headers).
    `font_url` gives the URL of a bundled font file; None when the renderer has the
    bundled fonts installed, so only the default font stack is declared. The contents
    lists the headings of `toc_source` (a chunk's: the whole document's), else those that
    follow it; `toc_pages` gives their pages when the renderer cannot compute them."""
    body_html = _PAGE_BREAK.sub('<div class="rs-page-break"></div>', body_html)
    body_html = toc_anchor(body_html) if has_toc(body_html) else body_html
    if marker := _TOC.search(body_html):
        # As xhtml2pdf's: the contents lists the headings that follow it.
        following = body_html[marker.end() :] if toc_source is None else toc_source
        body_html = _TOC.sub(lambda _: toc_html(following, toc_pages), body_html, count=1)
    body_html = html_font_fallback(body_html)
    fonts = (
        fonts_css(body_html + css, url_for=font_url)
        if font_url
        else f"body {{ font-family: {DEFAULT_STACK}; }}\n"
    )
    # Margin boxes do not inherit the body's font: the same stack for them.
    page = f"@page {{ margin: {DEFAULT_MARGIN}; font-family: {DEFAULT_STACK}; }}"
    base = f"{fonts}{page}\n{_TOC_CSS}"
    size = f"{options.page_size} {options.orientation}"
    margin = f" margin: {options.margin};" if options.margin else ""
    last = f"@page {{ size: {size};{margin} }}\n{page_css}"
    head_start = f'<meta charset="utf-8"><style>{base}</style>'
    head_end = f"<style>{css_font_fallback(css)}</style><style>{last}</style>"
    # Without a doctype Chromium lays out in quirks mode (tables ignore inherited font sizes).
    doctype = "" if _DOCTYPE.match(body_html) else "<!DOCTYPE html>"
    if _HEAD_OPEN.search(body_html):
        document = _HEAD_OPEN.sub(lambda m: m.group(0) + head_start, body_html, count=1)
        return doctype + _HEAD_CLOSE.sub(lambda _: head_end + "</head>", document, count=1)
    if _HTML_OPEN.search(body_html):
        return doctype + _HTML_OPEN.sub(
            lambda m: f"{m.group(0)}<head>{head_start}{head_end}</head>", body_html, count=1
        )
    return f"{doctype}<html><head>{head_start}{head_end}</head><body>{body_html}</body></html>"
