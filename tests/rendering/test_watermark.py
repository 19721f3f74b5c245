"""The DRAFT/TEST watermark is drawn on every page and leaves the content in place."""

from __future__ import annotations

import io

from pypdf import PdfReader

from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from rendering.watermark import watermark_apply
from reports.limits import limits_from_settings
from tests.conftest import pdf_text


def _pdf(pages: int) -> bytes:
    html = "<p>BODY</p><pdf:nextpage />" * (pages - 1) + "<p>BODY</p>"
    options = parse_options({"orientation": "landscape"})
    return report_render(
        source=TemplateSource(engine="raw", html=html, css=""),
        data={},
        options=options,
        limits=limits_from_settings(),
    ).content


def test_every_page_gets_the_watermark_and_keeps_its_text():
    stamped = watermark_apply(_pdf(3), "DRAFT")
    reader = PdfReader(io.BytesIO(stamped))
    assert len(reader.pages) == 3
    for page in reader.pages:
        text = page.extract_text()
        assert "DRAFT" in text
        assert "BODY" in text
        assert round(float(page.mediabox.width)) == 842  # size untouched


def test_test_mode_option_stamps_test():
    rendered = report_render(
        source=TemplateSource(engine="raw", html="<p>x</p>", css=""),
        data={},
        options=parse_options({"test_mode": True}),
        limits=limits_from_settings(),
    )
    assert "TEST" in pdf_text(rendered.content)[1]
    plain = report_render(
        source=TemplateSource(engine="raw", html="<p>x</p>", css=""),
        data={},
        options=parse_options({}),
        limits=limits_from_settings(),
    )
    assert "TEST" not in pdf_text(plain.content)[1]
