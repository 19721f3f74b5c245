"""Gotenberg's form fields in our options' terms, and what is refused; a header, footer or
asset that would cost more than its size to read is refused before it is read."""

from __future__ import annotations

import time

import pytest

from dropins.gotenberg_form import (
    assets_inline,
    form_options,
    form_warnings,
    markdown_inline,
    running_text,
)
from rendering.errors import InvalidInput, LimitExceeded
from rendering.options import parse_options


def test_paper_sizes_map_to_our_names_either_way_round():
    options, renderer = form_options({"paperWidth": "8.27", "paperHeight": "11.7"})
    assert (options["page_size"], options["orientation"], renderer) == ("A4", "portrait", None)
    turned, _ = form_options({"paperWidth": "11", "paperHeight": "8.5"})
    assert (turned["page_size"], turned["orientation"]) == ("Letter", "landscape")
    metric, _ = form_options({"paperWidth": "210mm", "paperHeight": "297mm", "landscape": "true"})
    assert (metric["page_size"], metric["orientation"]) == ("A4", "landscape")
    with pytest.raises(InvalidInput, match="Legal"):
        form_options({"paperWidth": "4", "paperHeight": "6"})


def test_margins_default_to_gotenbergs_and_parse_as_our_options():
    options, _ = form_options({"marginTop": "1", "marginLeft": "0"})
    assert options["margin"] == "25.4mm 9.91mm 9.91mm 0mm"  # top right bottom left
    assert parse_options(options).margin == options["margin"]  # our own check agrees


def test_fields_we_cannot_honour_are_refused_unless_default():
    form_options({"scale": "1.0", "preferCssPageSize": "false", "printBackground": "true"})
    for field, value in (
        ("scale", "0.8"),
        ("waitForExpression", "window.ready"),
        ("singlePage", "true"),
    ):
        with pytest.raises(InvalidInput, match=field):
            form_options({field: value})


def test_pdfa_and_pdfua_choose_weasyprint_and_the_profile():
    options, renderer = form_options({"pdfa": "PDF/A-2b"})
    assert (options["pdf"], renderer) == ({"profile": "pdf/a-2b"}, "weasyprint")
    options, _ = form_options({"pdfua": "true"})
    assert options["pdf"] == {"profile": "pdf/ua-1"}
    with pytest.raises(InvalidInput, match="PDF/A-2B"):
        form_options({"pdfa": "PDF/A-1b"})


@pytest.mark.parametrize(
    ("pdfa", "made"),
    [("PDF/A-2b", "pdf/a-2a"), ("PDF/A-3u", "pdf/a-3a"), ("PDF/A-3a", "pdf/a-3a")],
)
def test_pdfa_with_pdfua_makes_the_tagged_pdfa_level_and_says_so(pdfa, made):
    fields = {"pdfa": pdfa, "pdfua": "true"}
    options, renderer = form_options(fields)
    assert (options["pdf"], renderer) == ({"profile": made}, "weasyprint")
    moved, combined = form_warnings(fields)
    assert moved.startswith(f"pdfa={pdfa} with pdfua=true: rendered with WeasyPrint, not Chromium")
    assert "<img width>" in moved
    assert f"made {made.upper()}, the PDF/A level that is tagged for accessibility" in combined


def test_only_a_profile_warns_about_the_renderer():
    assert form_warnings({"paperWidth": "8.5"}) == []
    (moved,) = form_warnings({"pdfa": "PDF/A-2b"})
    assert "rendered with WeasyPrint, not Chromium" in moved


def test_header_html_becomes_running_text_with_page_counters():
    header = (
        '<html><style>p{x}</style><p>Page <span class="pageNumber"></span> / '
        '<span class="totalPages"></span> &amp; co</p></html>'
    )
    assert running_text(header) == "Page {page} / {pages} & co"


def test_assets_become_data_uris_and_markdown_becomes_html():
    page = '<link href="style.css"><img src="./a.png"><div style="background:url(a.png)">'
    inlined = assets_inline(page, {"style.css": b"p{}", "a.png": b"\x89PNG"}, max_bytes=10_000)
    assert 'href="data:text/css;base64,' in inlined
    assert inlined.count("data:image/png;base64,") == 2
    html = markdown_inline('<body>{{ toHTML "a.md" }}</body>', {"a.md": b"# Title"})
    assert html == "<body><h1>Title</h1></body>"
    with pytest.raises(InvalidInput, match=r"b\.md"):
        markdown_inline('{{ toHTML "b.md" }}', {})


def test_48_kb_of_style_openings_is_refused_before_it_is_parsed():
    started = time.perf_counter()
    with pytest.raises(InvalidInput, match="at most 32,768"):
        running_text("<style" * 8192)  # 48 KB: 2.5 s in the backtracking regex it replaces
    assert time.perf_counter() - started < 0.1


@pytest.mark.parametrize(
    "payload",
    [
        "<style" * 5000 + ">",  # one tag, its style never closed
        "<style>" * 4600,  # each opening a style that never closes
        "<a<a" * 8000,  # tags that never end
        '<span class="pageNumber' * 1300 + ">",  # a class attribute never closed
        "<head></he" * 3200,  # a closing tag that never completes
    ],
    ids=["style-one-tag", "style-opened", "unended", "class-unclosed", "head-unclosed"],
)
def test_a_header_under_the_cap_is_read_in_one_pass(payload):
    assert len(payload) <= 32 * 1024
    started = time.perf_counter()
    try:
        running_text(payload)
    except InvalidInput:
        pass  # too much running text is a fine answer; a slow one is not
    # The regex this replaces took about a second on 32 KB of `<style>`; one pass, ms.
    assert time.perf_counter() - started < 0.25


def test_an_asset_referenced_many_times_is_refused_before_it_is_built():
    page = '<img src="a.png">' * 800  # 14 KB in, 17 MB out if each reference is inlined
    started = time.perf_counter()
    with pytest.raises(LimitExceeded) as refused:
        assets_inline(page, {"a.png": b"\x89PNG" * 4000}, max_bytes=512 * 1024)
    assert refused.value.http_status == 413
    assert "with its assets inlined is over the 0.5 MB" in refused.value.message
    assert time.perf_counter() - started < 0.25
