"""What the service promises, on each of the three renderers, read back from the PDF."""

from __future__ import annotations

import io
import re
import subprocess

import pytest
from pypdf import PdfReader

from rendering.errors import LimitExceeded
from rendering.options import parse_options
from tests.conftest import pdf_text
from tests.rendering.conftest import page_texts, render, report

BAR_CHART = {
    "data": {"values": [{"city": "Lisbon", "sales": 4}, {"city": "Oslo", "sales": 7}]},
    "mark": "bar",
    "encoding": {
        "x": {"field": "city", "type": "nominal"},
        "y": {"field": "sales", "type": "quantitative"},
    },
}


def _size(content: bytes) -> tuple[float, float]:
    box = PdfReader(io.BytesIO(content)).pages[0].mediabox
    return float(box.width), float(box.height)


def test_data_reaches_the_pdf_text(renderer):
    rendered = render(renderer, "<h1>Quarter {{q}}</h1><p>{{who}}</p>", data={"q": 3, "who": "Ada"})
    pages, text = pdf_text(rendered.content)
    assert pages == 1
    assert "Quarter 3" in text
    assert "Ada" in text


@pytest.mark.parametrize(
    ("page_size", "orientation", "expected"),
    [
        ("A4", "portrait", (595, 842)),
        ("Letter", "landscape", (792, 612)),
        ("A5", "portrait", (420, 595)),
    ],
)
def test_page_size_and_orientation(renderer, page_size, orientation, expected):
    rendered = render(renderer, "<p>x</p>", page_size=page_size, orientation=orientation)
    # Chromium rounds page sizes to whole CSS pixels: A4 is 595.92 x 842.88 pt there.
    assert _size(rendered.content) == pytest.approx(expected, abs=1.5)


def test_the_option_size_wins_over_the_templates_page_rule(renderer):
    rendered = render(renderer, "<p>x</p>", css="@page { size: A3 landscape; }", page_size="A5")
    assert _size(rendered.content) == pytest.approx((420, 595), abs=1.5)


def _left_edge(content: bytes) -> float:
    import pypdfium2 as pdfium

    page = pdfium.PdfDocument(content)[0]
    text_page = page.get_textpage()
    return min(text_page.get_charbox(i)[0] for i in range(text_page.count_chars()))


def test_margin_option_moves_the_text(renderer):
    narrow = _left_edge(render(renderer, "<p>MARGIN</p>", margin="1cm").content)
    wide = _left_edge(render(renderer, "<p>MARGIN</p>", margin="4cm").content)
    # 3 cm more margin is 85 pt further right.
    assert wide - narrow == pytest.approx(85, abs=4)


def test_header_and_footer_say_page_x_of_y(renderer):
    html = "<p>one</p>{{pageBreak}}<p>two</p>{{pageBreak}}<p>three</p>"
    rendered = render(renderer, html, header="ACME report", footer="Page {page} of {pages}")
    texts = page_texts(rendered.content)
    assert len(texts) == 3
    for number, text in enumerate(texts, start=1):
        assert "ACME report" in text
        assert f"Page {number} of 3" in text


def test_table_of_contents_has_the_page_numbers(renderer):
    html = "{{toc}}{{#each parts}}{{pageBreak}}<h1>{{this}} section</h1><p>text</p>{{/each}}"
    rendered = render(renderer, html, data={"parts": ["Alpha", "Beta", "Gamma"]})
    texts = page_texts(rendered.content)
    assert len(texts) == 4
    contents = " ".join(texts[0].split())
    for name, page in (("Alpha", 2), ("Beta", 3), ("Gamma", 4)):
        # xhtml2pdf's text comes out number first, the others' number last.
        entry = rf"(\b{page} {name} section|{name} section[ .]*{page}\b)"
        assert re.search(entry, contents), contents


def test_metadata_options(renderer):
    rendered = render(renderer, "<p>x</p>", title="Q3 report", author="Ada", subject="Sales")
    meta = PdfReader(io.BytesIO(rendered.content)).metadata
    assert (meta.title, meta.author, meta.subject) == ("Q3 report", "Ada", "Sales")


def test_watermark_and_test_mode(renderer):
    marked = render(renderer, "<p>body</p>", watermark="DRAFT")
    assert "DRAFT" in pdf_text(marked.content)[1]
    test_mode = render(renderer, "<p>body</p>", test_mode=True)
    assert "TEST" in pdf_text(test_mode.content)[1]


def test_charts_are_vector_where_the_renderer_takes_svg(renderer):
    rendered = render(renderer, "<p>Sales</p>{{chart spec}}", data={"spec": BAR_CHART})
    text = pdf_text(rendered.content)[1]
    if renderer == "xhtml2pdf":
        # A PNG: the axis labels are pixels.
        assert "Lisbon" not in text
    else:
        # Drawn as vector SVG: the axis labels are text in the PDF, sharp at any zoom.
        assert "Lisbon" in text
        assert "Oslo" in text
    assert rendered.warnings == []


def _fonts(content: bytes) -> str:
    return subprocess.run(
        ["pdffonts", "-"], input=content, capture_output=True, check=True
    ).stdout.decode()


def test_bundled_fonts_are_embedded(renderer):
    rendered = render(renderer, "<p>Hello Ελληνικά Кириллица 日本語 한국어</p>")
    fonts = _fonts(rendered.content).replace("-", "").replace(" ", "")
    assert "ReportSans" in fonts
    assert "ReportCJK" in fonts
    assert "ReportHangul" in fonts
    text = " ".join(pdf_text(rendered.content)[1].split())
    assert "Hello Ελληνικά Кириллица 日本語 한국어" in text


def test_page_limit_is_a_permanent_error(renderer, settings):
    settings.PDF_MAX_PAGES = 2
    with pytest.raises(LimitExceeded, match="the limit is 2"):
        render(renderer, "{{#each p}}<p>x</p>{{pageBreak}}{{/each}}<p>y</p>", data={"p": [1, 2]})


def test_layout_time_limit_is_a_permanent_error(renderer):
    rows = "".join(f"<tr><td>row {i}</td><td>{i * 3}</td></tr>" for i in range(30_000))
    with pytest.raises(LimitExceeded, match="longer than"):
        report(
            engine="raw",
            source=f"<table>{rows}</table>",
            css="",
            data={},
            options=parse_options({}),
            renderer=renderer,
            max_render_seconds=1,
        )


def test_progress_stages_and_pages_are_reported(renderer):
    stages: list[tuple[str, int]] = []
    pages: list[int] = []
    report(
        engine="handlebars",
        source="<p>a</p>{{pageBreak}}<p>b</p>{{chart spec}}",
        css="",
        data={"spec": BAR_CHART},
        options=parse_options({}),
        renderer=renderer,
        on_stage=lambda stage, progress: stages.append((stage, progress)),
        on_page=pages.append,
    )
    names = [stage for stage, _ in stages]
    assert names[0] == "rendering_template"
    assert names.index("rendering_charts") < names.index("laying_out") < names.index("finishing")
    assert [progress for _, progress in stages] == sorted(progress for _, progress in stages)
    assert pages[-1] == 2


def test_preview_lays_out_only_the_first_page(renderer):
    rendered = report(
        engine="handlebars",
        source="<p>first</p>{{pageBreak}}<p>second</p>{{pageBreak}}<p>third</p>",
        css="",
        data={},
        options=parse_options({}),
        renderer=renderer,
        max_pages=1,
    )
    pages, text = pdf_text(rendered.content)
    assert "first" in text
    assert "third" not in text
    # xhtml2pdf stops once the second page starts; the others print exactly one.
    assert pages == (2 if renderer == "xhtml2pdf" else 1)
