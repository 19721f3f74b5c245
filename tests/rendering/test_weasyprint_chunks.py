"""WeasyPrint's chunked layout: a document cut at its page breaks, laid out chunk by chunk
with the page numbers off, the contents last, merged and stamped, reads back like the
whole document laid out at once: pages, "Page X of Y", contents pages and links, bookmarks."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from rendering.errors import LimitExceeded
from rendering.limits import DEFAULT_LIMITS, Limits
from rendering.options import parse_options
from rendering.renderers import get_chunker, get_renderer
from rendering.renderers.base import LayoutJob, RenderedPdf

SECTIONS = 7
CSS = """
@page { margin: 2cm;
  @bottom-center { content: "Report · Page " counter(page) " of " counter(pages); }
  @top-left { content: "Quarterly"; } }
@page :first { @top-left { content: none; } }
h1 { font-size: 16pt; }
"""
OPTIONS = parse_options({"title": "Chunked"})


def _body(sections: int = SECTIONS, *, toc: bool = True) -> str:
    parts = ["<h2>Front page</h2>"]
    if toc:
        parts.append("<pdf:nextpage /><div>Contents</div><pdf:toc />")
    for index in range(1, sections + 1):
        # Section 3 runs over several pages, so the page numbers are not just the indexes.
        paragraphs = 90 if index == 3 else 3
        text = "".join(f"<p>Section {index} line {n}.</p>" for n in range(paragraphs))
        parts.append(f"<pdf:nextpage /><h1>Section {index}</h1>{text}")
    return "".join(parts)


def _chunked(body: str, chunks: int, *, css: str = CSS, limits: Limits = DEFAULT_LIMITS):
    """What a job does across workers, here in one process: plan, chunks, merge."""
    chunker = get_chunker("weasyprint")
    assert chunker is not None
    plan = chunker.plan(body_html=body, css=css, options=OPTIONS, chunks=chunks)
    assert plan is not None
    parts = [chunker.render_chunk(plan, i, limits=limits) for i in range(chunker.count(plan))]
    return chunker.merge(plan, parts, limits=limits), len(parts)


def _whole(body: str) -> RenderedPdf:
    return get_renderer("weasyprint").render(
        LayoutJob(body_html=body, css=CSS, options=OPTIONS, limits=DEFAULT_LIMITS)
    )


def _pages_text(content: bytes) -> list[list[str]]:
    # Sorted lines: the stamped numbers are drawn after the body.
    return [
        sorted(line.strip() for line in page.extract_text().splitlines() if line.strip())
        for page in PdfReader(io.BytesIO(content)).pages
    ]


@pytest.mark.parametrize("chunks", [2, 3])
def test_chunked_layout_reads_back_like_the_whole_layout(chunks):
    merged, laid_out = _chunked(_body(), chunks)
    assert laid_out == chunks
    whole = _whole(_body())
    assert merged.page_count == whole.page_count > SECTIONS + 3
    assert _pages_text(merged.content) == _pages_text(whole.content)


def test_page_x_of_y_is_numbered_across_chunks_once_per_page():
    merged, _ = _chunked(_body(), 3)
    reader = PdfReader(io.BytesIO(merged.content))
    total = len(reader.pages)
    for number, page in enumerate(reader.pages, start=1):
        text = page.extract_text()
        assert text.count("Page ") == 1, text
        assert f"Report · Page {number} of {total}" in text
        # The plain margin box stays with the chunks, and :first still means page 1 only.
        assert ("Quarterly" in text) is (number > 1)


def test_contents_carry_the_merged_page_numbers_and_link_to_the_headings():
    merged, _ = _chunked(_body(), 3)
    reader = PdfReader(io.BytesIO(merged.content))
    heading_page = {}
    for index, page in enumerate(reader.pages[2:], start=2):  # after the contents
        for line in page.extract_text().splitlines():
            if line.startswith("Section ") and "line" not in line:
                heading_page.setdefault(line.strip(), index + 1)
    contents = reader.pages[1]
    lines = [line.strip() for line in contents.extract_text().splitlines()]
    for title, page in heading_page.items():
        assert f"{title} {page}" in lines
    targets = []
    for annot in contents.get("/Annots") or []:
        dest = annot.get_object()["/Dest"]
        targets.append(reader.get_page_number(dest[0].get_object()) + 1)
    assert targets == list(heading_page.values())


def test_bookmarks_point_at_each_heading_in_order():
    merged, _ = _chunked(_body(), 3)
    reader = PdfReader(io.BytesIO(merged.content))
    outline = [
        (item.title, reader.get_destination_page_number(item) + 1)
        for item in reader.outline
        if not isinstance(item, list)
    ]
    assert [title for title, _ in outline] == ["Front page"] + [
        f"Section {n}" for n in range(1, SECTIONS + 1)
    ]
    whole = PdfReader(io.BytesIO(_whole(_body()).content))
    assert [page for _, page in outline] == [
        whole.get_destination_page_number(item) + 1
        for item in whole.outline
        if not isinstance(item, list)
    ]
    assert outline[4][1] > outline[3][1] + 1  # section 3 takes several pages


def test_a_document_without_contents_is_cut_into_body_chunks_only():
    merged, laid_out = _chunked(_body(toc=False), 2)
    assert laid_out == 2
    assert merged.page_count > SECTIONS + 2
    assert _pages_text(merged.content) == _pages_text(_whole(_body(toc=False)).content)


@pytest.mark.parametrize(
    "css",
    [
        "h1 { string-set: chapter content(); } @page { @top-right { content: string(chapter); } }",
        "h1 { counter-increment: chapter; } h1::before { content: counter(chapter); }",
        "@page :left { margin-left: 3cm; }",
        "h1 { page: chapter; } @page chapter { margin: 1cm; }",
        "a::after { content: target-counter(attr(href), page); }",
    ],
)
def test_documents_that_need_one_whole_layout_are_not_chunked(css):
    chunker = get_chunker("weasyprint")
    assert chunker is not None
    assert chunker.plan(body_html=_body(), css=CSS + css, options=OPTIONS, chunks=2) is None


def test_chromium_lays_every_document_out_whole():
    assert get_chunker("chromium") is None


def test_the_page_limit_counts_the_merged_pages():
    limits = Limits(max_pages=SECTIONS)  # each chunk alone is under it, the whole is not
    with pytest.raises(LimitExceeded, match="pages"):
        _chunked(_body(), 3, limits=limits)
