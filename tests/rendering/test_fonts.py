"""Bundled fonts: Latin, Greek, Cyrillic and CJK glyphs are embedded, not boxes."""

from __future__ import annotations

import io

from fontTools.ttLib import TTFont
from pypdf import PdfReader

from rendering.fonts import FONTS_DIR, fonts_css
from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from tests.conftest import pdf_text

SAMPLE = {
    "latin": "Façade naïve déjà Ærø",
    "greek": "Καλημέρα κόσμε",
    "cyrillic": "Съешь же ещё этих булок",
    "chinese": "你好世界\uff0c报告",
    "japanese": "こんにちは、カタカナ",
    "korean": "안녕하세요 보고서",
}


def _embedded_fonts(content: bytes) -> set[str]:
    names = set()
    for page in PdfReader(io.BytesIO(content)).pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            names.add(str(font.get_object()["/BaseFont"]))
    return names


def test_every_script_renders_with_a_bundled_font_and_no_missing_glyph_warning():
    html = "".join(f"<p>{text}</p>" for text in SAMPLE.values())
    rendered = report_render(
        source=TemplateSource(engine="raw", html=html, css=""),
        data={},
        options=parse_options({}),
        limits=limits_from_settings(),
    )
    _, text = pdf_text(rendered.content)
    for script, sample in SAMPLE.items():
        assert sample in text, script
    assert not [w for w in rendered.warnings if "No font" in w]
    fonts = " ".join(_embedded_fonts(rendered.content))
    for family in ("ReportSans", "ReportCJK", "ReportHangul"):
        assert family in fonts.replace(" ", "")


def test_the_font_files_have_the_glyphs_they_claim():
    cmaps = {f.name: TTFont(f).getBestCmap() for f in FONTS_DIR.glob("*.ttf")}
    for char in SAMPLE["latin"] + SAMPLE["greek"] + SAMPLE["cyrillic"]:
        assert char == " " or ord(char) in cmaps["ReportSans.ttf"], char
    for char in SAMPLE["chinese"] + SAMPLE["japanese"]:
        assert ord(char) in cmaps["ReportCJK.ttf"], char
    for char in SAMPLE["korean"].replace(" ", ""):
        assert ord(char) in cmaps["ReportHangul.ttf"], char


def test_cjk_faces_are_declared_only_when_needed():
    assert "ReportCJK" not in fonts_css("<p>plain</p>")
    assert "ReportCJK" in fonts_css("<p>漢字</p>")


def test_a_templates_own_font_as_a_data_uri_is_used():
    import base64

    font = base64.b64encode((FONTS_DIR / "ReportSans-Bold.ttf").read_bytes()).decode()
    css = (
        f'@font-face {{ font-family: "Mine"; src: url("data:font/ttf;base64,{font}"); }}'
        ' p { font-family: "Mine"; }'
    )
    rendered = report_render(
        source=TemplateSource(engine="raw", html="<p>Own font</p>", css=css),
        data={},
        options=parse_options({}),
        limits=limits_from_settings(),
    )
    assert "Own font" in pdf_text(rendered.content)[1]
    assert not [w for w in rendered.warnings if "not allowed" in w or "Blocked" in w]
