"""A job on a renderer that drops what its template uses gets a warning naming it."""

from __future__ import annotations

from rendering.limits import Limits
from rendering.options import parse_options
from rendering.renderer_fit import renderer_fit_warnings
from rendering.report import RenderInput, TemplateSource, report_prepare
from reports.samples import sample_files


def test_the_sales_report_on_weasyprint_names_its_page_number_tags_and_frames():
    html, css, _ = sample_files("sales-report")
    warnings = renderer_fit_warnings(
        html=html, css=css, renderer="weasyprint", made_for=("xhtml2pdf",)
    )
    assert warnings[0].startswith("This template is made for the xhtml2pdf renderer")
    assert "ignores xhtml2pdf's <pdf:pagecount>, <pdf:pagenumber>" in warnings[1]
    assert "@frame and -pdf- CSS" in warnings[2]


def test_the_sales_report_on_its_own_renderer_has_no_warning():
    html, css, _ = sample_files("sales-report")
    assert renderer_fit_warnings(html=html, css=css, renderer="xhtml2pdf", made_for=()) == []


def test_scripts_outside_chromium_and_flex_on_xhtml2pdf_are_named():
    html, css, _ = sample_files("field-metrics")
    on_weasyprint = renderer_fit_warnings(html=html, css=css, renderer="weasyprint")
    assert any(
        "Only the chromium renderer runs the template's <script>" in w for w in on_weasyprint
    )
    flex = renderer_fit_warnings(
        html="<div>x</div>", css=".row { display: flex }", renderer="xhtml2pdf"
    )
    assert flex == [
        "The xhtml2pdf renderer ignores display: flex; choose weasyprint or chromium for it."
    ]
    margin_boxes = renderer_fit_warnings(
        html="", css="@page { @bottom-center { content: counter(page) } }", renderer="xhtml2pdf"
    )
    assert "@page margin boxes" in margin_boxes[0]


def test_a_prepared_document_carries_the_warnings_for_the_job():
    source = TemplateSource(
        engine="handlebars",
        html="<p>Page <pdf:pagenumber> of <pdf:pagecount></p>",
        renderer="chromium",
        made_for=("xhtml2pdf",),
    )
    prepared = report_prepare(
        RenderInput(source=source, data={}, options=parse_options({}), limits=Limits())
    )
    assert len(prepared.warnings) == 2
    assert "laid out by chromium" in prepared.warnings[0]
    assert "<pdf:pagecount>, <pdf:pagenumber>" in prepared.warnings[1]
