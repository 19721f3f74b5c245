"""What a renderer drops of a template written for another one, as warnings a job keeps:
xhtml2pdf's <pdf:...> tags and @frame/-pdf- CSS elsewhere, scripts outside Chromium,
flex, grid and @page margin boxes on xhtml2pdf; and a template made for other renderers."""

from __future__ import annotations

import re

_PDF_TAG = re.compile(r"<pdf:([a-z]+)", re.IGNORECASE)
_PDF_CSS = re.compile(r"@frame\b|-pdf-[a-z-]+", re.IGNORECASE)
_SCRIPT = re.compile(r"<script\b", re.IGNORECASE)
_MODERN_CSS = re.compile(
    r"display\s*:\s*(?:inline-)?(flex|grid)|@(?:top|bottom)-(?:left|center|right)\b",
    re.IGNORECASE,
)


def renderer_fit_warnings(
    *, html: str, css: str, renderer: str, made_for: tuple[str, ...] = ()
) -> list[str]:
    """One warning per thing `renderer` drops, naming it and what to do instead."""
    warnings: list[str] = []
    if made_for and renderer not in made_for:
        warnings.append(
            f"This template is made for the {' or '.join(made_for)} renderer; laid out by "
            f"{renderer} parts of it may be lost or look different."
        )
    source = html + "\n" + css
    if renderer != "xhtml2pdf":
        tags = sorted({f"<pdf:{name.lower()}>" for name in _PDF_TAG.findall(html)})
        if tags:
            warnings.append(
                f"The {renderer} renderer ignores xhtml2pdf's {', '.join(tags)}: what they "
                "draw (page numbers, page counts, breaks) is missing. Choose xhtml2pdf, or "
                "use CSS counter(page) in @page margin boxes."
            )
        if _PDF_CSS.search(source):
            warnings.append(
                f"The {renderer} renderer ignores xhtml2pdf's @frame and -pdf- CSS: headers, "
                "footers and columns placed in frames flow as ordinary content."
            )
    if renderer != "chromium" and _SCRIPT.search(html):
        warnings.append(
            f"Only the chromium renderer runs the template's <script>; on {renderer} what "
            "the scripts draw stays empty."
        )
    if renderer == "xhtml2pdf" and (found := _MODERN_CSS.search(source)):
        what = f"display: {found.group(1)}" if found.group(1) else "@page margin boxes"
        warnings.append(
            f"The xhtml2pdf renderer ignores {what}; choose weasyprint or chromium for it."
        )
    return warnings
