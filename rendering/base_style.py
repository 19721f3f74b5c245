"""Browser-like default sizes for inline HTML, the same on every renderer: xhtml2pdf's own
defaults make `<h1>` a 10 pt heading over 7.5 pt text, where a browser (and so WeasyPrint
and Chromium) gives 24 pt over 12 pt. Stored templates bring their own CSS."""

from __future__ import annotations

import re

# The HTML standard's user-agent sizes and margins, in pt so xhtml2pdf reads them too.
INLINE_BASE_CSS = """
body { font-size: 12pt; line-height: 1.25; }
h1 { font-size: 24pt; margin: 16pt 0; font-weight: bold; }
h2 { font-size: 18pt; margin: 15pt 0; font-weight: bold; }
h3 { font-size: 14pt; margin: 14pt 0; font-weight: bold; }
h4 { font-size: 12pt; margin: 16pt 0; font-weight: bold; }
h5 { font-size: 10pt; margin: 17pt 0; font-weight: bold; }
h6 { font-size: 8pt; margin: 19pt 0; font-weight: bold; }
p, ul, ol, table { margin: 12pt 0; }
small { font-size: 10pt; }
"""

_HEAD_OPEN = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_DOCUMENT = re.compile(r"\s*(<!doctype|<html)", re.IGNORECASE)


def with_base_style(html: str, css: str) -> str:
    """`html` with `css` first of all its styles, so the template's own rules win: at the
    start of a fragment, or first in the head of a whole document."""
    if not css:
        return html
    style = f"<style>{css}</style>"
    if head := _HEAD_OPEN.search(html):
        return html[: head.end()] + style + html[head.end() :]
    if _DOCUMENT.match(html):
        return html  # a whole document without a head: its author chose every style
    return style + html
