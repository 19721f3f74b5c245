"""WeasyPrint's chunked layout (`base.Chunker`): the body is cut at its top-level page breaks,
each chunk laid out alone with the numbered margin boxes ("Page X of Y") switched off, then
the contents laid out with the pages the chunks report, the chunks merged with their links
pointed across chunks, and a stamp of the numbered margin boxes drawn over every page.

A document whose layout depends on earlier pages in ways a chunk cannot see is laid out
whole: running strings and elements, counters other than the page counters in margin
boxes, target-counter()/target-text(), left/right/blank page selectors, named pages."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from rendering.charts import chart_styles_apart
from rendering.chunking import PAGE_BREAK, ChunkPlan, body_sections, section_weights
from rendering.errors import page_count_check
from rendering.layout import close_pdf_tags
from rendering.limits import Limits
from rendering.merging import ChunkPdf, chunks_merge_linked
from rendering.options import PdfOptions
from rendering.renderers.base import LayoutBounds, RenderedPdf
from rendering.renderers.document import has_toc, headings, toc_anchor
from rendering.renderers.weasyprint import (
    document_for,
    laid_out,
    page_css,
    pdf_write,
)

# CSS whose output depends on the document before a chunk.
_WHOLE = re.compile(
    r"string-set|\bstring\(|\belement\(|running\(|target-(?:counters?|text)\("
    r"|counter-(?:reset|increment|set)|\bcounters\(|@page[^{]*:(?:left|right|blank|nth)"
    r"|(?<![@\w-])page\s*:\s*[\w-]",
    re.IGNORECASE,
)
_COUNTER = re.compile(r"\bcounter\(\s*([\w-]+)", re.IGNORECASE)
_MARGIN_BOX = re.compile(r"@((?:top|bottom|left|right)-[\w-]+)\s*\{([^{}]*)\}", re.IGNORECASE)
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.IGNORECASE | re.DOTALL)
_STYLE_ATTR = re.compile(r"""\sstyle\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_FIRST = re.compile(r"@page[^{]*:first", re.IGNORECASE)
_BODY = re.compile(r"<body[^>]*>(.*)</body\s*>", re.IGNORECASE | re.DOTALL)
_TOC = re.compile(r"<pdf:toc\b[^>]*>\s*(?:</pdf:toc>)?", re.IGNORECASE)
_PX_TO_PT = 0.75  # WeasyPrint measures pages in CSS pixels (96 a inch), PDF in points (72)


def _numbering(css: str) -> tuple[list[str], list[str]] | None:
    """(margin boxes showing page counters, the other margin boxes) of `css`, or None when
    it uses something a chunk cannot lay out as the whole document would."""
    css = _COMMENT.sub("", css)
    if _WHOLE.search(css):
        return None
    numbered: set[str] = set()
    plain: set[str] = set()
    inside = 0
    for box in _MARGIN_BOX.finditer(css):
        counters = _COUNTER.findall(box.group(2))
        inside += len(counters)
        (numbered if counters else plain).add(box.group(1).lower())
    counters = _COUNTER.findall(css)
    if len(counters) != inside or any(name.lower() not in ("page", "pages") for name in counters):
        return None
    return sorted(numbered), sorted(plain - numbered)


def _boxes_off(boxes: list[str]) -> str:
    """CSS that removes these margin boxes from every page (whatever rule set them)."""
    rules = " ".join(f"@{box} {{ content: none !important; }}" for box in boxes)
    return f"\n@page {{ {rules} }}\n" if boxes else ""


# The stamp draws only the numbered boxes over the merged pages: no page background.
_STAMP_CSS = """
@page { background: transparent !important; border: none !important; }
html, body { background: transparent !important; }
"""


@dataclass(frozen=True)
class _Plan:
    chunks: ChunkPlan  # head, body sections, tail (no frames: those are xhtml2pdf's)
    count: int  # chunks asked for
    css: str
    options: PdfOptions
    numbered: list[str]
    plain: list[str]
    first_rules: bool  # @page :first rules: a later chunk lays out a page before its own

    def dumps(self) -> str:
        return json.dumps(
            {
                "chunks": self.chunks.to_dict(),
                "count": self.count,
                "css": self.css,
                "options": self.options.as_dict(),
                "numbered": self.numbered,
                "plain": self.plain,
                "first_rules": self.first_rules,
            }
        )

    @classmethod
    def loads(cls, text: str) -> _Plan:
        fields = json.loads(text)
        return cls(
            chunks=ChunkPlan.from_dict(fields["chunks"]),
            count=int(fields["count"]),
            css=fields["css"],
            options=PdfOptions(**fields["options"]),
            numbered=list(fields["numbered"]),
            plain=list(fields["plain"]),
            first_rules=bool(fields["first_rules"]),
        )

    def body(self, first: int, last: int) -> str:
        lead = f"<div></div>{PAGE_BREAK}" if first > 0 and self.first_rules else ""
        sections = PAGE_BREAK.join(self.chunks.sections[first : last + 1])
        return f"{self.chunks.head}{lead}{sections}{self.chunks.tail}"

    def toc_source(self) -> str:
        """The whole body after the contents marker: the headings the contents lists."""
        body = PAGE_BREAK.join(self.chunks.sections)
        marker = _TOC.search(body)
        return body[marker.end() :] if marker else ""


def _render(
    plan: _Plan,
    run: tuple[int, int],
    *,
    limits: Limits,
    toc_pages: dict[str, int] | None = None,
) -> ChunkPdf:
    """Lay out one run of sections with the numbered margin boxes off; its anchors and its
    links to anchors elsewhere come back in PDF points."""
    first, last = run
    lead = first > 0 and plan.first_rules
    document = document_for(
        plan.body(first, last),
        css=plan.css,
        options=plan.options,
        toc=False,
        extra_page_css=_boxes_off(plan.numbered),
        toc_pages=toc_pages,
        toc_source=plan.toc_source() if toc_pages is not None else None,
    )
    bounds = LayoutBounds.from_limits(limits)
    laid, warnings = laid_out(document, replace(bounds, max_pages=bounds.max_pages + int(lead)))
    if lead:
        laid = laid.copy(laid.pages[1:])
    anchors: dict[str, list[float]] = {}
    links: list[list[object]] = []
    for index, page in enumerate(laid.pages):
        for name, (x, y, *_) in page.anchors.items():
            anchors.setdefault(name, [index, x * _PX_TO_PT, (page.height - y) * _PX_TO_PT])
    for index, page in enumerate(laid.pages):
        height = page.height
        for kind, target, (x1, y1, x2, y2), _ in page.links:
            if kind == "internal" and target not in anchors:
                links.append(
                    [index, target, *(v * _PX_TO_PT for v in (x1, height - y1, x2, height - y2))]
                )
    return ChunkPdf(
        content=pdf_write(laid, plan.options),
        page_count=len(laid.pages),
        warnings=warnings,
        anchors=anchors,
        links=links,
    )


def _stamp(plan: _Plan, pages: int, *, limits: Limits) -> bytes:
    """`pages` empty pages carrying only the numbered margin boxes."""
    body = PAGE_BREAK.join(["<div></div>"] * pages)
    document = document_for(
        f"{plan.chunks.head}{body}{plan.chunks.tail}",
        css=plan.css,
        options=plan.options,
        toc=False,
        extra_page_css=_boxes_off(plan.plain) + _STAMP_CSS,
    )
    laid, _ = laid_out(document, replace(LayoutBounds.from_limits(limits), max_pages=pages))
    content: bytes = laid.write_pdf()
    return content


class WeasyPrintChunker:
    def plan(self, *, body_html: str, css: str, options: PdfOptions, chunks: int) -> str | None:
        if options.pdf is not None:
            # A PDF/A or UA variant, tags and XMP are written for one whole document: a
            # merge of chunks would claim what no layout produced.
            return None
        body_html, chart_css = chart_styles_apart(close_pdf_tags(body_html))
        css = f"{css}\n{chart_css}" if chart_css else css
        styles = [css, page_css(options, toc=False), *_STYLE.findall(body_html)]
        styles += [a or b for a, b in _STYLE_ATTR.findall(body_html)]
        numbering = _numbering("\n".join(styles))
        if numbering is None:
            return None
        found = _BODY.search(body_html)
        if found:
            head, body, tail = (
                body_html[: found.start(1)],
                found.group(1),
                body_html[found.end(1) :],
            )
        else:
            head, body, tail = "", body_html, ""
        if len(_TOC.findall(body)) > 1:
            return None
        body = toc_anchor(body) if has_toc(body) else body
        sections, toc_section = body_sections(body)
        cut = ChunkPlan(
            head=head,
            frames="",
            numbered="",
            sections=tuple(sections),
            tail=tail,
            toc_section=toc_section,
            weights=section_weights(sections),
        )
        if len(cut.body_runs(chunks)) < 2:
            return None
        return _Plan(
            chunks=cut,
            count=chunks,
            css=css,
            options=options,
            numbered=numbering[0],
            plain=numbering[1],
            first_rules=_FIRST.search("\n".join(styles)) is not None,
        ).dumps()

    def count(self, plan: str) -> int:
        loaded = _Plan.loads(plan)
        return len(loaded.chunks.body_runs(loaded.count))

    def render_chunk(self, plan: str, index: int, *, limits: Limits) -> ChunkPdf:
        loaded = _Plan.loads(plan)
        return _render(loaded, loaded.chunks.body_runs(loaded.count)[index], limits=limits)

    def merge(self, plan: str, parts: list[ChunkPdf], *, limits: Limits) -> RenderedPdf:
        loaded = _Plan.loads(plan)
        parts = list(parts)
        if loaded.chunks.toc_section is not None:
            parts.insert(0, _contents(loaded, parts, limits=limits))
        pages = sum(part.page_count for part in parts)
        page_count_check(pages, limits.max_pages)
        stamp = _stamp(loaded, pages, limits=limits) if loaded.numbered else None
        content = chunks_merge_linked(parts, stamp=stamp)
        # A chunk's missing anchors are in another chunk: their warnings are not the job's.
        warnings = [w for part in parts for w in part.warnings if "No anchor" not in w]
        return RenderedPdf(
            content=content, page_count=pages, warnings=list(dict.fromkeys(warnings))
        )


def _contents(plan: _Plan, body: list[ChunkPdf], *, limits: Limits) -> ChunkPdf:
    """The run holding the contents, laid out last with the pages of the headings it
    lists: once, or again if its own length (or its own headings) moved them."""
    run = plan.chunks.ranges(plan.count)[0]
    toc_pages = run[1] - run[0] + 1  # a guess: one page per section
    own: dict[str, int] = {}  # listed headings in this run itself, by their page
    listed = {anchor for _, anchor, _ in headings(plan.toc_source())}
    for attempt in range(3):
        pages = dict(own)
        offset = toc_pages
        for part in body:
            for name, (page, *_) in part.anchors.items():
                pages.setdefault(name, offset + int(page) + 1)
            offset += part.page_count
        toc = _render(plan, run, limits=limits, toc_pages=pages)
        laid_own = {
            name: int(page) + 1 for name, (page, *_) in toc.anchors.items() if name in listed
        }
        if (toc.page_count == toc_pages and laid_own == own) or attempt == 2:
            return toc
        own, toc_pages = laid_own, toc.page_count
    raise AssertionError("unreachable")


CHUNKER = WeasyPrintChunker()
