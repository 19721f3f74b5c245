"""Page layout of a document: its fonts and CSS, page size and margins from the options,
running header and footer with "Page X of Y", and closed `<pdf:…>` tags (contents, page
breaks), so the template's own @page rule and frames keep working."""

from __future__ import annotations

import re
from html import escape as html_escape

from rendering.fonts import fonts_css
from rendering.options import PdfOptions

_HEAD_CLOSE = re.compile(r"</head\s*>", re.IGNORECASE)
_HTML_OPEN = re.compile(r"<html[^>]*>", re.IGNORECASE)
_PAGE_RULE = re.compile(r"@page\s*\{")
DEFAULT_MARGIN = "2cm"


def _into_page_rule(document: str, declarations: str) -> str | None:
    """Append declarations at the end of the document's first @page rule, so the job's
    options win while the template keeps its margins and frames; None if it has none."""
    match = _PAGE_RULE.search(document)
    if match is None:
        return None
    depth = 1
    for index in range(match.end(), len(document)):
        char = document[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return f"{document[:index]}; {declarations}\n{document[index:]}"
    return None


def _running_text(text: str) -> str:
    # Plain text from the options, escaped; {page} and {pages} become live counters.
    escaped = html_escape(text)
    return escaped.replace("{page}", "<pdf:pagenumber></pdf:pagenumber>").replace(
        "{pages}", "<pdf:pagecount></pdf:pagecount>"
    )


def _running_blocks(options: PdfOptions, margin: str) -> tuple[str, str]:
    """(frame rules, content divs) of the header and footer the options ask for."""
    sides = margin.split()
    left = sides[-1] if len(sides) == 4 else sides[-1 if len(sides) < 3 else 1]
    right = sides[1] if len(sides) > 1 else sides[0]
    frames, divs = [], []
    for name, text, edge in (
        ("header", options.header, "top"),
        ("footer", options.footer, "bottom"),
    ):
        if not text:
            continue
        frames.append(
            f"@frame rs_{name} {{ -pdf-frame-content: rs-{name}; {edge}: 0.7cm; height: 0.8cm; "
            f"margin-left: {left}; margin-right: {right}; }}"
        )
        divs.append(
            f'<div id="rs-{name}" class="rs-{name}" style="font-size: 8pt; color: #52606d; '
            f'text-align: center;">{_running_text(text)}</div>'
        )
    return " ".join(frames), "".join(divs)


_BODY_OPEN = re.compile(r"<body[^>]*>", re.IGNORECASE)
_SELF_CLOSING_PDF_TAG = re.compile(r"<(pdf:[a-z]+)(\s[^<>]*?)?\s*/>", re.IGNORECASE)


def _close_pdf_tags(html: str) -> str:
    # The HTML parser ignores "/>" on unknown tags, so each <pdf:nextpage /> would
    # swallow the rest of the document as its child: 3,000 page breaks nest 3,000 deep.
    return _SELF_CLOSING_PDF_TAG.sub(
        lambda m: f"<{m.group(1)}{m.group(2) or ''}></{m.group(1)}>", html
    )


def build_document(*, body_html: str, css: str, options: PdfOptions) -> str:
    """Wrap rendered HTML into a full document carrying the template CSS and page options."""
    # xhtml2pdf treats a second @page rule as a new page template that drops the first
    # one's margins and frames, so options go into the template's own rule.
    body_html = _close_pdf_tags(body_html)
    style = f"<style>{fonts_css(body_html + css)}{css}</style>"
    if _HEAD_CLOSE.search(body_html):
        document = _HEAD_CLOSE.sub(lambda _: f"{style}</head>", body_html, count=1)
    elif _HTML_OPEN.search(body_html):
        document = _HTML_OPEN.sub(lambda m: f"{m.group(0)}<head>{style}</head>", body_html, count=1)
    else:
        document = (
            f'<html><head><meta charset="utf-8">{style}</head><body>{body_html}</body></html>'
        )
    margin = options.margin or DEFAULT_MARGIN
    frames, divs = _running_blocks(options, margin)
    if divs:
        if _BODY_OPEN.search(document):
            document = _BODY_OPEN.sub(lambda m: f"{m.group(0)}{divs}", document, count=1)
        else:
            document = document.replace("</head>", f"</head><body>{divs}", 1) + "</body>"
    declarations = f"size: {options.page_size.lower()} {options.orientation};"
    if options.margin:
        declarations += f" margin: {options.margin};"
    declarations += f" {frames}" if frames else ""
    sized = _into_page_rule(document, declarations)
    if sized is not None:
        return sized
    page_css = f"<style>@page {{ margin: {DEFAULT_MARGIN}; {declarations} }}</style>"
    return _HEAD_CLOSE.sub(lambda _: f"{page_css}</head>", document, count=1)
