"""Chunked layout: a document cut at its page breaks, laid out in pieces and merged, reads
back like the whole document laid out at once: pages, page numbers, contents, bookmarks."""

from __future__ import annotations

import io
import itertools
from dataclasses import replace

import pytest
from pypdf import PdfReader

from rendering.chunking import (
    IMAGE_TAGS,
    TEXT_CHARS_PER_TAG,
    ChunkPlan,
    document_plan,
    section_weight,
)
from rendering.errors import LimitExceeded
from rendering.layout import build_document
from rendering.limits import Limits
from rendering.options import parse_options
from rendering.renderers import xhtml2pdf
from rendering.renderers.xhtml2pdf import document_render, html_to_pdf

SECTIONS = 7
CSS = """
@page { margin: 2cm 2cm 2.5cm 2cm;
  @frame footer { -pdf-frame-content: footer; bottom: 1cm; margin-left: 2cm;
                  margin-right: 2cm; height: 1cm; } }
@frame other { -pdf-frame-content: note; }
h1 { font-size: 16pt; }
"""


@pytest.fixture(autouse=True)
def _one_pass_for_short_documents(monkeypatch):
    # The test documents are short; these tests are about the one-pass path.
    monkeypatch.setattr(xhtml2pdf, "ONE_PASS_MIN_TAGS", 0)


def _document(sections: int = SECTIONS, *, toc: bool = True, extra: str = "") -> str:
    parts = ['<div id="footer">Report &middot; Page <pdf:pagenumber /> of <pdf:pagecount /></div>']
    parts.append("<h2>Front page</h2>" + extra)
    if toc:
        parts.append("<pdf:nextpage /><div>Contents</div><pdf:toc />")
    for index in range(1, sections + 1):
        # Section 3 runs over two pages, so the page numbers are not just the indexes.
        paragraphs = 60 if index == 3 else 3
        body = "".join(f"<p>Section {index} line {n}.</p>" for n in range(paragraphs))
        parts.append(f"<pdf:nextpage /><h1>Section {index}</h1>{body}")
    return build_document(body_html="".join(parts), css=CSS, options=parse_options({}))


def _pages_text(content: bytes) -> list[list[str]]:
    """Each page's lines, sorted: the stamped footer is drawn after the body, so it comes
    out of text extraction in another order."""
    pages = PdfReader(io.BytesIO(content)).pages
    return [
        sorted(line.strip() for line in p.extract_text().splitlines() if line.strip())
        for p in pages
    ]


def _outline(content: bytes) -> list[tuple[str, int]]:
    reader = PdfReader(io.BytesIO(content))
    return [(item.title, reader.get_destination_page_number(item)) for item in reader.outline]


@pytest.mark.parametrize("chunks", [1, 2, 3, 8])
def test_chunked_layout_reads_back_like_the_whole_layout(chunks):
    document = _document()
    whole = html_to_pdf(document)
    merged = document_render(document, chunks=chunks)
    assert merged.page_count == whole.page_count == SECTIONS + 3  # front, contents, 3 is two
    assert _pages_text(merged.content) == _pages_text(whole.content)
    assert _placed_text(merged.content) == _placed_text(whole.content)
    assert _outline(merged.content) == _outline(whole.content)


def _placed_text(content: bytes) -> list[list[tuple[str, float, float]]]:
    """Each page's text runs with where they start on the page (points), sorted."""
    pages = []
    for page in PdfReader(io.BytesIO(content)).pages:
        found: list[tuple[str, float, float]] = []

        def visit(text, cm, tm, _font, _size, found=found):
            if text.strip():
                x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
                y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
                found.append((text.strip(), round(x, 2), round(y, 2)))

        page.extract_text(visitor_text=visit)
        pages.append(sorted(found))
    return pages


def test_a_chunk_starting_at_a_full_page_lays_it_out_as_the_whole_layout(monkeypatch):
    # Section 3 fills its first page to the last line in the whole layout. A chunk that
    # starts there must drop its heading's top spacing as the whole does after a page
    # break, or the page's last line moves to the next page.
    cuts = [(0, 1), (2, 3), (4, 4), (5, 8)]
    monkeypatch.setattr(ChunkPlan, "ranges", lambda self, chunks: cuts)
    document = _document()
    whole = html_to_pdf(document)
    merged = document_render(document, chunks=len(cuts))
    assert "Section 3 line 35." in _pages_text(whole.content)[4]
    assert merged.page_count == whole.page_count
    assert _pages_text(merged.content) == _pages_text(whole.content)
    # Not only the same lines on each page: each at the same place as in the whole.
    assert _placed_text(merged.content) == _placed_text(whole.content)
    assert _outline(merged.content) == _outline(whole.content)


def test_page_x_of_y_is_numbered_across_chunks():
    merged = document_render(_document(), chunks=3)
    pages = _pages_text(merged.content)
    for number, lines in enumerate(pages, start=1):
        assert f"Report · Page {number} of {len(pages)}" in lines


def test_contents_entries_carry_the_merged_page_numbers_and_link_to_the_headings():
    merged = document_render(_document(), chunks=3)
    reader = PdfReader(io.BytesIO(merged.content))
    lines = [line.strip() for line in reader.pages[1].extract_text().splitlines()]
    # Each entry comes out as its number, then its title. Section 1 is on page 3; section 3
    # takes pages 5 and 6, so section 4 is on page 7.
    numbers = {
        title: int(number) for number, title in itertools.pairwise(lines) if number.isdigit()
    }
    assert numbers["Front page"] == 1
    assert numbers["Section 1"] == 3
    assert numbers["Section 4"] == 7
    assert numbers[f"Section {SECTIONS}"] == SECTIONS + 3
    page_of = {page.indirect_reference.idnum: index for index, page in enumerate(reader.pages)}
    targets = [
        page_of[annot.get_object()["/Dest"][0].idnum] for annot in reader.pages[1]["/Annots"]
    ]
    assert targets == [0, 2, 3, 4, 6, 7, 8, 9]  # 0-based pages: front page, sections 1..7


def test_a_document_without_contents_or_page_count_renders_whole():
    document = build_document(body_html="<h1>Plain</h1>", css="", options=parse_options({}))
    plan = document_plan(document)
    assert plan is not None
    assert not plan.numbered
    assert plan.toc_section is None
    assert document_render(document).page_count == 1


@pytest.mark.parametrize(
    "feature",
    [
        "<pdf:nexttemplate name='wide' />",
        '<div style="-pdf-frame-pages: last">x</div>',
        "<p>Page <pdf:pagenumber /> inline</p>",
    ],
)
def test_documents_that_need_one_whole_layout_are_not_chunked(feature):
    assert document_plan(_document(extra=feature)) is None


def test_ranges_keep_the_contents_apart_and_never_exceed_the_chunks_asked_for():
    plan = document_plan(_document(sections=20))
    assert plan is not None
    assert plan.toc_section == 1
    for chunks in (1, 2, 4, 30):
        runs = plan.ranges(chunks)
        assert runs[0] == (0, 1)  # front page and contents
        assert len(runs) <= chunks + 1
        assert [first for first, _ in runs[1:]] == [last + 1 for _, last in runs[:-1]]
        assert runs[-1][1] == len(plan.sections) - 1


def test_the_page_limit_counts_the_merged_pages():
    limits = Limits(max_pages=SECTIONS)  # each chunk alone is under it, the whole is not
    with pytest.raises(LimitExceeded, match="pages"):
        document_render(_document(), chunks=4, limits=limits)


def test_the_stamp_has_the_page_count_written_in_so_it_lays_out_in_one_pass():
    plan = document_plan(_document())
    assert plan is not None
    stamp = plan.stamp_html(12)
    assert "pagecount" not in stamp.lower()
    assert "</pdf:pagenumber> of 12</div>" in stamp
    pages = _pages_text(html_to_pdf(stamp).content)
    assert pages == [[f"Report · Page {n} of 12"] for n in range(1, 13)]


def test_a_section_weighs_its_tags_text_and_images():
    tags = "<p>a</p>" * 10
    assert section_weight(tags) == 21
    assert section_weight("<p>" + "x" * TEXT_CHARS_PER_TAG * 4 + "</p>") == 2 + 1 + 4
    image = '<img src="data:image/png;base64,' + "A" * 100_000 + '">'
    # An image weighs by count, not by the bytes of its data URI.
    assert section_weight(image) == 1 + 1 + IMAGE_TAGS


def _weighted_document(front_images: int) -> str:
    """Sections 1-4 are images with a line each, 5-12 tables of text: one image is worth
    many rows, which a count of tags alone does not see."""
    parts = ['<div id="footer">Page <pdf:pagenumber /> of <pdf:pagecount /></div><h2>Front</h2>']
    parts.append("<pdf:nextpage /><pdf:toc />")
    image = '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==">'
    for index in range(1, 13):
        if index <= 4:
            body = image * front_images
        else:
            body = "<table>" + "<tr><td>row</td><td>cell</td></tr>" * 15 + "</table>"
        parts.append(f"<pdf:nextpage /><h1>Section {index}</h1>{body}")
    return build_document(body_html="".join(parts), css=CSS, options=parse_options({}))


@pytest.mark.parametrize("chunks", [2, 3])
def test_body_runs_balance_the_estimated_work_within_one_section(chunks):
    plan = document_plan(_weighted_document(front_images=3))
    assert plan is not None
    assert plan.weights is not None
    runs = plan.body_runs(chunks)
    assert len(runs) == chunks
    weights = [sum(plan.weights[first : last + 1]) for first, last in runs]
    body = sum(plan.weights[plan.toc_section + 1 :])
    heaviest = max(plan.weights[plan.toc_section + 1 :])
    for weight in weights:
        assert abs(weight - body / chunks) <= heaviest
    # The image sections weigh more than their tags: the first run holds fewer sections
    # than a count of tags would give it.
    by_tags = replace(plan, weights=None).body_runs(chunks)
    assert runs[0][1] < by_tags[0][1]


def test_a_plan_stored_before_weights_still_cuts_by_tags():
    plan = document_plan(_weighted_document(front_images=3))
    assert plan is not None
    stored = plan.to_dict()
    del stored["weights"]
    old = ChunkPlan.from_dict(stored)
    assert old.weights is None
    assert old.ranges(2) == replace(plan, weights=None).ranges(2)
    assert ChunkPlan.from_json(plan.to_json()) == plan
