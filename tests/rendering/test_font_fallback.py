"""Whatever font a template names, text in any script comes out in a bundled font."""

from __future__ import annotations

import subprocess

import pytest

from rendering.font_fallback import css_font_fallback, html_font_fallback
from tests.conftest import pdf_text
from tests.rendering.conftest import render

pytestmark = pytest.mark.process


STACK = "'Report Sans', 'Report CJK', 'Report Hangul'"


def test_every_font_family_list_gets_the_bundled_stack():
    css = 'h1 { font-family: Helvetica, "Times New Roman"; } p { font: bold 12px/1.4 Arial; }'
    assert css_font_fallback(css) == (
        f'h1 {{ font-family: Helvetica, "Times New Roman", {STACK}; }} '
        f"p {{ font: bold 12px/1.4 Arial, {STACK}; }}"
    )


def test_important_keywords_and_lists_that_already_fall_back_are_kept():
    assert css_font_fallback("p { font-family: Georgia !important }") == (
        f"p {{ font-family: Georgia, {STACK} !important }}"
    )
    assert css_font_fallback("p { font: inherit; font-size: 3px }") == (
        "p { font: inherit; font-size: 3px }"
    )
    already = f"p {{ font-family: x, {STACK}; }}"
    assert css_font_fallback(already) == already


def test_style_attributes_keep_their_quotes_intact():
    html = "<p style=\"font-family: 'Helvetica'; color: red\">font-family: text</p>"
    assert html_font_fallback(html) == (
        f"<p style=\"font-family: 'Helvetica', {STACK}; color: red\">font-family: text</p>"
    )


def test_cjk_text_in_a_helvetica_document_comes_out_on_every_renderer(renderer):
    rendered = render(
        renderer,
        '<p style="font-family: Helvetica">Total 合計 합계 Σύνολο Итого</p>',
        css="body { font-family: Helvetica, Arial, sans-serif; }",
    )
    text = " ".join(pdf_text(rendered.content)[1].split())
    assert "Total 合計 합계 Σύνολο Итого" in text
    fonts = subprocess.run(
        ["pdffonts", "-"], input=rendered.content, capture_output=True, check=True
    ).stdout.decode()
    assert "ReportCJK" in fonts.replace("-", "")
    assert "ReportHangul" in fonts.replace("-", "")


def test_a_japanese_invoice_in_an_unknown_font_keeps_every_word_on_every_renderer(renderer):
    # Windows' Japanese extensions (CP932) that invoices use: ㈱, circled numbers, and the
    # name variants 髙 and 﨑; before they were bundled, xhtml2pdf dropped 5 of these 8 words.
    amount = "￥\uff11\uff12\uff0c\uff13\uff14\uff15"  # full-width ￥12,345
    words = ["御請求書", "㈱サンプル商事", "髙橋", "山﨑", "①", "②", "ご請求金額", amount]
    rendered = render(
        renderer,
        "<p style=\"font-family: 'MS PGothic', Meiryo\">" + " ".join(words) + "</p>",
        css="body { font-family: 'Hiragino Kaku Gothic ProN'; }",
    )
    text = subprocess.run(
        ["pdftotext", "-", "-"], input=rendered.content, capture_output=True, check=True
    ).stdout.decode()
    assert [word for word in words if word not in text] == []
    fonts = subprocess.run(
        ["pdffonts", "-"], input=rendered.content, capture_output=True, check=True
    ).stdout.decode()
    assert "ReportCJK" in fonts.replace("-", "")
