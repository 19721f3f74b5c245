"""Gotenberg's form fields in our options' terms, and what is refused."""

from __future__ import annotations

import pytest

from jobs.adapters.gotenberg_form import (
    assets_inline,
    form_options,
    markdown_inline,
    running_text,
)
from rendering.errors import InvalidInput
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


def test_header_html_becomes_running_text_with_page_counters():
    header = (
        '<html><style>p{x}</style><p>Page <span class="pageNumber"></span> / '
        '<span class="totalPages"></span> &amp; co</p></html>'
    )
    assert running_text(header) == "Page {page} / {pages} & co"


def test_assets_become_data_uris_and_markdown_becomes_html():
    page = '<link href="style.css"><img src="./a.png"><div style="background:url(a.png)">'
    inlined = assets_inline(page, {"style.css": b"p{}", "a.png": b"\x89PNG"})
    assert 'href="data:text/css;base64,' in inlined
    assert inlined.count("data:image/png;base64,") == 2
    html = markdown_inline('<body>{{ toHTML "a.md" }}</body>', {"a.md": b"# Title"})
    assert html == "<body><h1>Title</h1></body>"
    with pytest.raises(InvalidInput, match=r"b\.md"):
        markdown_inline('{{ toHTML "b.md" }}', {})
