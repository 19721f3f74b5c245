"""A one-page document with "Page X of Y" is laid out once; longer ones and those with a
table of contents keep xhtml2pdf's passes (rendering.renderers.xhtml2pdf_hooks)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from pypdf import PdfReader
from reportlab import rl_config
from xhtml2pdf.xhtml2pdf_reportlab import PmlBaseDoc

from rendering.layout import build_document
from rendering.options import parse_options
from rendering.renderers import xhtml2pdf_hooks
from rendering.renderers.xhtml2pdf import html_to_pdf
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from reports.samples import sample_files

FOOTER_CSS = """
@page { margin: 2cm 2cm 3cm 2cm;
  @frame footer { -pdf-frame-content: footer; bottom: 1cm; margin-left: 2cm;
                  margin-right: 2cm; height: 1cm; } }
"""


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pages each layout pass ended on, for every document laid out in the test."""
    ended: list[int] = []
    build = PmlBaseDoc.build

    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        build(self, *args, **kwargs)
        ended.append(self.page)

    monkeypatch.setattr(PmlBaseDoc, "build", counted)
    return ended


def _document(paragraphs: int, extra: str = "") -> str:
    body = (
        '<div id="footer">Page <pdf:pagenumber> of <pdf:pagecount></div>'
        + extra
        + "".join(f"<p>Paragraph {n} of the report.</p>" for n in range(paragraphs))
    )
    return build_document(body_html=body, css=FOOTER_CSS, options=parse_options({}))


def _texts(content: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(content)).pages]


def test_a_one_page_document_with_its_page_count_is_laid_out_once(passes: list[int]) -> None:
    rendered = html_to_pdf(_document(5))
    assert passes == [1]
    (text,) = _texts(rendered.content)
    assert "Page 1 of 1" in text


def test_a_longer_document_keeps_the_second_pass_that_draws_its_count(
    passes: list[int],
) -> None:
    rendered = html_to_pdf(_document(120))
    assert rendered.page_count >= 2
    assert passes == [rendered.page_count, rendered.page_count]
    texts = _texts(rendered.content)
    assert all(f"of {rendered.page_count}" in text for text in texts)
    assert "Page 1 of" in texts[0]


def test_a_table_of_contents_keeps_its_passes(passes: list[int]) -> None:
    document = _document(3, extra="<pdf:toc /><h1>Summary</h1>")
    rendered = html_to_pdf(document)
    assert len(passes) >= 2
    assert "Summary" in _texts(rendered.content)[0]


def test_one_pass_gives_the_bytes_two_passes_gave(
    monkeypatch: pytest.MonkeyPatch, passes: list[int]
) -> None:
    # ReportLab's invariant mode: no dates or random ids, so two layouts can be compared.
    monkeypatch.setattr(rl_config, "invariant", 1)
    html, css, data = sample_files("invoice")
    source = TemplateSource(engine="handlebars", html=html, css=css)
    options, limits = parse_options({}), limits_from_settings()

    def render() -> bytes:
        return report_render(source=source, data=data, options=options, limits=limits).content

    one_pass = render()
    assert passes == [1]
    xhtml2pdf_hooks.install()
    monkeypatch.setattr(PmlBaseDoc, "_allSatisfied", xhtml2pdf_hooks._original_all_satisfied)
    two_passes = render()
    assert passes == [1, 1, 1]
    assert one_pass == two_passes
