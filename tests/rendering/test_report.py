"""HTML to PDF: page options, limits, locked-down resources, and the shipped samples."""

from __future__ import annotations

import base64
import io

import pytest

from rendering.errors import LimitExceeded, RenderError, TemplateSyntaxError
from rendering.layout import build_document
from rendering.options import parse_options
from rendering.renderers.xhtml2pdf import html_to_pdf
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from reports.samples import SAMPLES, sample_files, sample_schema
from reports.validation import data_validate
from tests.conftest import pdf_text
from tests.rendering.conftest import overlapping, word_boxes

PNG_1PX = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
        "0000000d4944415478da63f8cfc0f01f0005000201a5f0c7e50000000049454e44ae426082"
    )
).decode()


def _render(html: str, data: dict | None = None, **options: str):
    return report_render(
        source=TemplateSource(engine="handlebars", html=html, css=""),
        data=data or {},
        options=parse_options(options),
        limits=limits_from_settings(),
    )


def test_render_puts_data_into_the_pdf_text():
    pages, text = pdf_text(
        _render("<h1>Quarter {{q}}</h1><p>{{who}}</p>", {"q": 3, "who": "Ada"}).content
    )
    assert pages == 1
    assert "Quarter 3" in text
    assert "Ada" in text


def test_page_size_and_orientation_options_set_the_media_box():
    import io

    from pypdf import PdfReader

    rendered = _render("<p>x</p>", page_size="Letter", orientation="landscape")
    box = PdfReader(io.BytesIO(rendered.content)).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (792, 612)


def test_options_keep_the_templates_own_margins_and_frames():
    css = "@page { margin: 3cm; @frame f { -pdf-frame-content: foot; bottom: 1cm; height: 1cm; } }"
    document = build_document(
        body_html='<div id="foot">FOOTER-MARK</div><p>body</p>',
        css=css,
        options=parse_options({"page_size": "A5"}),
    )
    assert document.count("@page") == 1
    assert "size: a5 portrait;" in document
    _, text = pdf_text(html_to_pdf(document, limits=limits_from_settings()).content)
    assert "FOOTER-MARK" in text


def test_forced_page_breaks_make_pages():
    html = "{{#each pages}}<p>Page body {{this}}</p><pdf:nextpage />{{/each}}<p>end</p>"
    pages, text = pdf_text(_render(html, {"pages": [1, 2, 3]}).content)
    assert pages == 4
    assert "Page body 3" in text


def test_page_limit_is_a_permanent_error(settings):
    settings.PDF_MAX_PAGES = 2
    with pytest.raises(LimitExceeded, match="more than 2 pages; the limit is 2"):
        _render("{{#each p}}<p>x</p><pdf:nextpage />{{/each}}<p>y</p>", {"p": [1, 2]})


def test_html_size_limit(settings):
    settings.PDF_MAX_HTML_BYTES = 2048
    with pytest.raises(LimitExceeded, match="larger than the 2048 bytes"):
        _render("{{#each r}}<p>row {{this}}</p>{{/each}}", {"r": list(range(500))})


def test_syntax_error_surfaces_from_report_render():
    with pytest.raises(TemplateSyntaxError):
        _render("{{#if x}}never closed")


def test_local_files_and_network_are_not_read_but_the_job_renders(tmp_path):
    secret = tmp_path / "secret.png"
    secret.write_bytes(base64.b64decode(PNG_1PX))
    html = (
        f'<img src="{secret}"><img src="file:///etc/passwd"><img src="http://127.0.0.1:9/x.png">'
        f'<img src="data:image/png;base64,{PNG_1PX}"><p>still here</p>'
    )
    rendered = _render(html)
    _, text = pdf_text(rendered.content)
    assert "still here" in text
    joined = " ".join(rendered.warnings)
    assert "secret.png" in joined
    assert "passwd" in joined
    assert "127.0.0.1" in joined or "remote resources are not allowed" in joined


@pytest.mark.heavy
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.slug)
def test_shipped_samples_render_with_their_sample_data(sample):
    html, css, data = sample_files(sample.slug)
    rendered = report_render(
        source=TemplateSource(engine=sample.engine, html=html, css=css, renderer=sample.renderer),
        data=data,
        options=parse_options({}),
        limits=limits_from_settings(),
    )
    pages, text = pdf_text(rendered.content)
    assert rendered.warnings == []
    assert "[object Object]" not in text
    data_validate(schema=sample_schema(sample.slug), data=data)
    if sample.slug == "invoice":
        assert pages == 1
        assert data["invoice"]["number"] in text
        assert "$3,248.10" in text  # subtotal 3,007.50 plus 8% tax
        assert "Page 1 of 1" in text
    elif sample.slug == "sales-report":
        assert pages == 9
        assert data["title"] in text
        assert data["transactions"][-1]["ref"] in text
        assert "Contents\n3\n1. North America\n4\n2. Europe" in text  # entries with pages
        assert _image_count(rendered.content) == 1 + len(data["regions"])
        assert f"Page {pages} of {pages}" in text
    elif sample.slug == "studio-invoice":  # WeasyPrint: flex, grid, margin boxes
        assert pages == 2
        assert "€44,126.25" in text  # 35,875.00 plus 23% VAT
        assert "Page 1 of 2" in text
        assert "Page 2 of 2" in text
        assert "Invoice FS-2026-118" in text  # string-set into the top-right margin box
        assert overlapping(word_boxes(rendered.content)) == []
    elif sample.slug == "field-metrics":  # Chromium: the template's script draws the charts
        assert pages == 1
        assert "iOS 41%" in text  # the legend the script builds
        assert "5,000" in text  # an axis label of the SVG the script draws
        assert overlapping(word_boxes(rendered.content)) == []
    elif sample.slug == "e-invoice":  # the PDF half of e-invoice.cii.xml, same figures
        assert pages == 1
        assert "Invoice INV-2026-0042" in text
        assert "1152.00" in text
        assert overlapping(word_boxes(rendered.content)) == []
    elif sample.slug == "certificate":  # flat fields, made for runs: one landscape page
        assert pages == 1
        assert data["name"] in text
        assert f"Certificate no. {data['number']}" in text
        assert overlapping(word_boxes(rendered.content)) == []
    else:  # the 50-page, 30-chart report: the one test that renders it
        assert pages == 50
        assert _image_count(rendered.content) == 30
        assert "50\n30. Cloud spend" in text  # the last contents entry and its page
        assert "Page 50 of 50" in text


def _image_count(content: bytes) -> int:
    from pypdf import PdfReader

    return sum(len(page.images) for page in PdfReader(io.BytesIO(content)).pages)


# Hard limits: each is a LimitExceeded (a permanent failure) with a message, quickly.


def _raw(html: str, css: str = "", **options: str):
    return report_render(
        source=TemplateSource(engine="raw", html=html, css=css),
        data={},
        options=parse_options(options),
        limits=limits_from_settings(),
    )


def test_400_deep_nesting_is_refused(settings):
    settings.PDF_MAX_NESTING_DEPTH = 100
    with pytest.raises(LimitExceeded, match="nests more than the 100 levels"):
        _raw("<div>" * 400 + "deep" + "</div>" * 400)


def test_3000_page_breaks_stop_at_the_page_limit_while_laying_out():
    import time

    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="more than 500 pages"):
        _raw("<p>x</p><pdf:nextpage />" * 3000)
    assert time.monotonic() - started < 30


def test_a_table_that_would_take_a_minute_stops_at_the_render_time_limit(settings):
    import time

    settings.PDF_MAX_RENDER_SECONDS = 2
    rows = "".join(f"<tr><td>{i}</td><td>{'cell text ' * 30}</td></tr>" for i in range(20000))
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="seconds"):
        _raw(f"<table repeat='1'><thead><tr><th>n</th><th>t</th></tr></thead>{rows}</table>")
    assert time.monotonic() - started < 15


def test_a_document_whose_parse_alone_outlasts_the_time_limit_stops_inside_it(settings):
    """xhtml2pdf checks its own clock only between its stages, and html5lib's parse of the
    whole document is one stage: 100,000 rows parse for seconds before it checks."""
    import time

    settings.PDF_MAX_RENDER_SECONDS = 1
    rows = "<tr><td>1</td></tr>" * 100_000
    started = time.monotonic()
    # Stopped by the deadline inside the parse (its message names the setting), not by
    # xhtml2pdf's own check after it.
    with pytest.raises(LimitExceeded, match=r"1 seconds it may take \(PDF_MAX_RENDER_SECONDS\)"):
        _raw(f"<table>{rows}</table>")
    assert time.monotonic() - started < 10


def test_reportlab_cve_2023_33733_colour_payload_creates_no_file(tmp_path):
    marker = tmp_path / "pwned"
    payload = (
        "[ [ getattr(pow, Word('__globals__'))['os'].system('touch " + str(marker) + "') "
        "for Word in [ orgTypeFun( 'Word', (str,), { 'mutated': 1, 'startswith': lambda self, "
        "x: 1 == 0, '__eq__': lambda self, x: self.mutate() and self.mutated < 0 and str(self) "
        "== x, 'mutate': lambda self: { setattr(self, 'mutated', self.mutated - 1) }, "
        "'__hash__': lambda self: hash(str(self)), }, ) ] ] for orgTypeFun in [type(type(1))] ] "
        "and 'red'"
    )
    html = f'<p><font color="{payload}">exploit</font></p><p style="color: {payload}">b</p>'
    try:
        _, text = pdf_text(_raw(html).content)
        assert "exploit" in text
    except RenderError:
        pass
    assert not marker.exists()


@pytest.mark.parametrize(
    ("html", "css"),
    [
        ('<p style="color: rgb(' + "1," * 30000 + '">x</p>', ""),
        ("<p>x</p>", "p { color: #" + "0" * 60000 + "; }"),
        ("<p>x</p>", "p { font-family: " + '"' + " " * 60000 + "; }"),
        ("<p>x</p>", "p { background: url(" + "\\" * 60000 + "); }"),
        ("<p>x</p>", "p { margin: " + "1" * 30000 + "px " * 5000 + "; }"),
        ("<p>x</p>", "/*" * 30000),
        ('<p style="' + "a:b;" * 30000 + '">x</p>', ""),
        ("<p>x</p>", "@media " + "(" * 30000 + " {}"),
    ],
)
def test_css_redos_strings_finish_in_under_a_second(html, css):
    import time

    # CPU time of this process, not wall time: a backtracking parser burns CPU for minutes,
    # while a busy machine only stretches the wall clock of a quick parse.
    started = time.process_time()
    try:
        _raw(html, css=css)
    except RenderError:
        pass
    assert time.process_time() - started < 1.0


# Paging: margins, running header and footer with page X of Y, TOC, metadata, charts, stages.


def test_header_and_footer_number_every_page_x_of_y():
    rendered = _raw(
        "<p>one</p><pdf:nextpage /><p>two</p><pdf:nextpage /><p>three</p>",
        header="ACME <confidential>",
        footer="Page {page} of {pages}",
    )
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(rendered.content)).pages
    assert len(pages) == 3
    for number, page in enumerate(pages, start=1):
        text = page.extract_text()
        assert f"Page {number} of 3" in text
        assert "ACME <confidential>" in text  # escaped into the HTML, shown as typed


def test_margin_option_moves_the_body_text():
    import pypdfium2 as pdfium

    def first_x(rendered) -> float:
        document = pdfium.PdfDocument(rendered.content)
        try:
            return document[0].get_textpage().get_charbox(0)[0]
        finally:
            document.close()

    narrow = first_x(_raw("<p>MARGIN</p>", margin="1cm"))
    wide = first_x(_raw("<p>MARGIN</p>", margin="4cm"))
    assert round(wide - narrow) == round(3 / 2.54 * 72)


def test_margin_and_size_options_override_the_templates_own_page_rule():
    document = build_document(
        body_html="<p>x</p>",
        css="@page { margin: 3cm; }",
        options=parse_options({"margin": "1cm", "page_size": "A5"}),
    )
    assert document.count("@page") == 1
    assert document.index("margin: 3cm") < document.index("margin: 1cm")


def test_metadata_comes_from_the_options():
    from pypdf import PdfReader

    rendered = _raw("<p>x</p>", title="Q3 Report", author="Ada Lovelace", subject="Sales")
    meta = PdfReader(io.BytesIO(rendered.content)).metadata
    assert (meta.title, meta.author, meta.subject) == ("Q3 Report", "Ada Lovelace", "Sales")


def test_table_of_contents_lists_the_headings_with_pages():
    source = "{{toc}}{{#each parts}}{{pageBreak}}<h1>{{this}}</h1><p>text</p>{{/each}}"
    rendered = report_render(
        source=TemplateSource(engine="handlebars", html=source, css=""),
        data={"parts": ["Alpha section", "Beta section"]},
        options=parse_options({}),
        limits=limits_from_settings(),
    )
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(rendered.content)).pages
    toc = pages[0].extract_text()
    assert "Alpha section" in toc
    assert "Beta section" in toc
    assert rendered.page_count == 3


def test_charts_are_embedded_as_images_and_stages_reported():
    spec = {
        "data": {"values": [{"a": "A", "b": 2}, {"a": "B", "b": 5}]},
        "mark": "bar",
        "encoding": {
            "x": {"field": "a", "type": "nominal"},
            "y": {"field": "b", "type": "quantitative"},
        },
    }
    stages: list[tuple[str, int]] = []
    pages: list[int] = []
    rendered = report_render(
        source=TemplateSource(
            engine="handlebars",
            html="<p>Chart</p>{{chart spec}}{{chart spec}}{{chart other}}",
            css="",
        ),
        data={"spec": spec, "other": spec | {"mark": "point"}},
        options=parse_options({}),
        on_stage=lambda stage, progress: stages.append((stage, progress)),
        on_page=pages.append,
        limits=limits_from_settings(),
    )
    from pypdf import PdfReader

    page = PdfReader(io.BytesIO(rendered.content)).pages[0]
    assert len(page.images) == 2  # the repeated chart is one image drawn twice
    assert page.get_contents().get_data().count(b" Do") == 3
    names = [stage for stage, _ in stages]
    assert names[:2] == ["rendering_template", "rendering_charts"]
    assert "laying_out" in names
    assert [p for _, p in stages] == sorted(p for _, p in stages)
    assert pages == [1]
