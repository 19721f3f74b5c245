"""Split a full HTML document at its top-level page breaks into chunk documents that lay
out exactly as their pages do in the whole, so chunks render apart and merge back."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any

PAGE_BREAK = "<pdf:nextpage></pdf:nextpage>"
# A chunk after the document's first starts where the whole has a page break: at the top of
# a fresh frame, where ReportLab drops the first block's spaceBefore. At the start of a
# document xhtml2pdf keeps it (a spacer ahead of the first block), so such a chunk would
# fit a line less on its first page. A zero-height spacer first leaves the frame at its top
# and makes the section's first block the second in the story, laid out as after a break.
FRAME_TOP = '<pdf:spacer height="0"></pdf:spacer>'
# A table-of-contents entry: (outline level, title, page, destination key), as xhtml2pdf
# notifies them.
TocEntry = tuple[int, str, int, str | None]
# The top coordinate of a placeholder destination: no page has it, so a merge can tell
# the links of a seeded table of contents from any other link.
TOC_LINK_MARKER = -7777
_TAG = re.compile(r"<(/?)([a-zA-Z][\w:.-]*)((?:\"[^\"]*\"|'[^']*'|[^'\">])*)>")
_VOID = frozenset(
    "area base br col embed hr img input link meta source track wbr pdf:nextpage"
    " pdf:pagenumber pdf:pagecount pdf:toc".split()
)
_BODY = re.compile(r"<body[^>]*>(.*)</body\s*>", re.IGNORECASE | re.DOTALL)
_FRAME_CONTENT = re.compile(r"-pdf-frame-content\s*:\s*([\w-]+)", re.IGNORECASE)
_NUMBERING = re.compile(r"<pdf:page(?:number|count)\b", re.IGNORECASE)
_PAGE_COUNT = re.compile(r"<pdf:pagecount\b[^>]*>(?:\s*</pdf:pagecount\s*>)?", re.IGNORECASE)
_TOC = re.compile(r"<pdf:toc\b([^>]*)>\s*(?:</pdf:toc>)?", re.IGNORECASE)
# Features whose output depends on the page's place in the whole document, or on page
# templates other than the first: such documents render whole.
_UNSUPPORTED = re.compile(
    r"pdf:nexttemplate|-pdf-frame-pages|-pdf-next-page|<pdf:frame\b|@page\s*[\w:]"
    r"|<pdf:(?:barcode|insertpages)\b|page-break-(?:before|after)\s*:\s*(?:left|right)",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"<[^>]*>")
_IMAGE = re.compile(r"<img\b", re.IGNORECASE)
# The layout cost of a section in tags' worth, measured with xhtml2pdf on the 50-page
# sample's sections (CPU, one process): ~0.3 ms a tag, as much for 250 characters of
# text, ~15 ms an image (a 100 KB chart PNG is decoded and compressed at each use).
TEXT_CHARS_PER_TAG = 250
IMAGE_TAGS = 50
_PAGE_BACKGROUND = re.compile(
    r"(?:@page|\bbody)\s*\{[^{}]*(?:\{[^{}]*\}[^{}]*)*background", re.IGNORECASE
)


@dataclass(frozen=True)
class ChunkPlan:
    """A document cut into sections that each start on a new page."""

    head: str  # the document up to and including <body ...>
    frames: str  # the static frames' contents, numbered ones emptied: in every chunk
    numbered: str  # the static frames' contents that show page numbers: stamped after
    sections: tuple[str, ...]  # the body between top-level page breaks
    tail: str  # </body></html>
    toc_section: int | None  # the section holding <pdf:toc>, if any
    # Each section's estimated layout work (section_weight), stored with the plan so every
    # task that reads it cuts the same runs; None in plans stored before: tags + 1.
    weights: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> ChunkPlan:
        weights = fields.get("weights")
        return cls(
            **{
                **fields,
                "sections": tuple(fields["sections"]),
                "weights": None if weights is None else tuple(weights),
            }
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> ChunkPlan:
        return cls.from_dict(json.loads(text))

    def body_runs(self, chunks: int) -> list[tuple[int, int]]:
        """The runs laid out before the contents (all of them without a contents)."""
        runs = self.ranges(chunks)
        return runs[1:] if self.toc_section is not None else runs

    def chunk_html(self, first: int, last: int) -> str:
        """The document made of sections first..last (inclusive)."""
        body = PAGE_BREAK.join(self.sections[first : last + 1])
        if first > 0:
            body = FRAME_TOP + body
        return f"{self.head}{self.frames}{body}{self.tail}"

    def stamp_html(self, pages: int) -> str:
        """A document of `pages` empty pages carrying only the numbered static frames.
        The page count is known by now and written in as text: `<pdf:pagecount>` would
        make xhtml2pdf lay the stamp out twice to learn it (as str(count), as here)."""
        numbered = _PAGE_COUNT.sub(str(pages), self.numbered)
        return f"{self.head}{numbered}{PAGE_BREAK.join(['<div>&nbsp;</div>'] * pages)}{self.tail}"

    def ranges(self, chunks: int) -> list[tuple[int, int]]:
        """(first, last) section runs: at most `chunks` runs of similar size for the body,
        after a run of their own for the sections up to the table of contents (laid out
        last, with the entries the body runs report)."""
        runs: list[tuple[int, int]] = []
        first = 0
        if self.toc_section is not None:
            runs.append((0, self.toc_section))
            first = self.toc_section + 1
        filled = [i for i in range(first, len(self.sections)) if self.sections[i].strip()]
        if not filled:
            if runs and first < len(self.sections):
                runs[-1] = (runs[-1][0], len(self.sections) - 1)
            return runs or [(0, len(self.sections) - 1)]
        wanted = max(1, min(chunks, len(filled)))  # the contents' own run is small: extra
        weights = self.weights or tuple(section.count("<") + 1 for section in self.sections)
        sizes = {i: weights[i] for i in filled}
        total = sum(sizes.values())
        done, cut = 0, 1
        for index in filled[:-1]:  # a run never ends after the last filled section
            done += sizes[index]
            if cut < wanted and done >= cut * total / wanted:
                runs.append((first, index))
                first, cut = index + 1, cut + 1
        runs.append((first, len(self.sections) - 1))
        return runs


def section_weights(sections: list[str]) -> tuple[int, ...]:
    """Each section's section_weight, as a plan stores them."""
    return tuple(section_weight(section) for section in sections)


def section_weight(section: str) -> int:
    """The estimated layout work of a section, in tags: its tags, its text and its images
    (by count, not bytes: an image's data URI is not text to lay out)."""
    text = len(_MARKUP.sub("", section))
    images = len(_IMAGE.findall(section))
    return section.count("<") + 1 + text // TEXT_CHARS_PER_TAG + images * IMAGE_TAGS


def _element_end(html: str, start: int) -> int:
    """Index just past the element that opens at `start` (its matching close tag)."""
    depth = 0
    for match in _TAG.finditer(html, start):
        closing, name, rest = match.group(1), match.group(2).lower(), match.group(3)
        if name in _VOID or rest.rstrip().endswith("/"):
            if depth == 0:
                return match.end()
            continue
        depth += -1 if closing else 1
        if depth == 0:
            return match.end()
    raise ValueError("unclosed element")


def top_level_breaks(body: str) -> list[tuple[int, int]]:
    """Spans of the page breaks that are direct children of <body>."""
    spans, depth = [], 0
    for match in _TAG.finditer(body):
        closing, name, rest = match.group(1), match.group(2).lower(), match.group(3)
        if name == "pdf:nextpage":
            if not closing and depth == 0:
                end = body.find("</pdf:nextpage>", match.end())
                spans.append((match.start(), end + len("</pdf:nextpage>")))
            continue
        if name in _VOID or rest.rstrip().endswith("/"):
            continue
        depth = max(0, depth + (-1 if closing else 1))
    return spans


def body_sections(body: str) -> tuple[list[str], int | None]:
    """The body cut at its top-level page breaks, and the section holding <pdf:toc>."""
    sections, previous = [], 0
    for start, end in top_level_breaks(body):
        sections.append(body[previous:start])
        previous = end
    sections.append(body[previous:])
    return sections, next((i for i, s in enumerate(sections) if _TOC.search(s)), None)


def document_plan(document: str) -> ChunkPlan | None:
    """The chunk plan of a document built by `build_document`, or None when it uses
    something that needs the whole document in one layout."""
    if _UNSUPPORTED.search(document):
        return None
    body_match = _BODY.search(document)
    if body_match is None:
        return None
    head, body = document[: body_match.start(1)], body_match.group(1)
    tail = document[body_match.end(1) :]
    tocs = list(_TOC.finditer(body))
    if len(tocs) > 1 or any("name=" in toc.group(1) for toc in tocs):
        return None
    if _PAGE_BACKGROUND.search(head):
        return None  # the stamp would paint the page background again, over the content
    frames, numbered = [], []
    for frame_id in dict.fromkeys(_FRAME_CONTENT.findall(head)):
        found = re.search(rf"<([a-zA-Z][\w-]*)[^>]*\bid=[\"']{re.escape(frame_id)}[\"']", body)
        if found is None:
            continue
        try:
            end = _element_end(body, found.start())
        except ValueError:
            return None
        element = body[found.start() : end]
        body = body[: found.start()] + body[end:]
        if _NUMBERING.search(element):
            numbered.append(element)
            open_tag = element[: element.index(">") + 1]
            frames.append(f"{open_tag}</{found.group(1)}>")
        else:
            frames.append(element)
    if _NUMBERING.search(body):
        return None  # a page number in the flow, not in a static frame
    sections, toc_section = body_sections(body)
    if tocs and toc_section is None:
        return None  # the table of contents is nested inside a block
    return ChunkPlan(
        head=head,
        frames="".join(frames),
        numbered="".join(numbered),
        sections=tuple(sections),
        tail=tail,
        toc_section=toc_section,
        weights=section_weights(sections),
    )
