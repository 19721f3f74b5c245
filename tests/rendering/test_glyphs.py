"""Characters no bundled font has are named in one warning, on every renderer; text in the
scripts the bundled fonts cover (Latin, Greek, Cyrillic, CJK, Hangul) warns about nothing."""

from __future__ import annotations

from rendering.glyphs import bundled_code_points, html_text, missing_glyph_warning
from tests.conftest import pdf_text
from tests.rendering.conftest import render

COVERED = "Façade Καλημέρα Съешь 你好世界 こんにちは 안녕하세요"
HIEROGLYPH, PRIVATE_USE = "\U00013000", "\ue000"


def test_covered_scripts_print_without_any_warning(renderer):
    rendered = render(renderer, f"<p>{COVERED}</p>", header="Seite {page} — 頁")
    text = pdf_text(rendered.content)[1]
    assert "안녕하세요" in text
    assert "Καλημέρα" in text
    assert rendered.warnings == []


def test_characters_no_bundled_font_has_are_named_once(renderer):
    rendered = render(
        renderer,
        f"<p>{COVERED} {HIEROGLYPH}{HIEROGLYPH} x{PRIVATE_USE}</p><p>{{{{word}}}}</p>",
        data={"word": "\U00013080 again"},
        footer="\U0001f600 {page}",
    )
    assert "你好世界" in pdf_text(rendered.content)[1]
    glyphs = [w for w in rendered.warnings if "none of the bundled fonts" in w]
    assert len(glyphs) == 1, rendered.warnings
    assert glyphs[0].startswith("4 character(s)")
    for code in ("U+13000 EGYPTIAN HIEROGLYPH A001", "U+13080", "U+E000", "U+1F600"):
        assert code in glyphs[0]
    # Nothing of the covered text is named, and no renderer adds its own glyph message.
    assert not any(f"U+{ord(char):04X}" in glyphs[0] for char in COVERED)
    assert [w for w in rendered.warnings if "glyph" in w.lower() or "font" in w.lower()] == (glyphs)


def test_only_printed_text_is_checked():
    html = (
        f'<style>p::before {{ content: "{PRIVATE_USE}"; }}</style>'
        f"<script>var s = '{HIEROGLYPH}';</script><!-- {HIEROGLYPH} -->"
        f'<img alt="{HIEROGLYPH}" src="data:image/png;base64,AAAA"><p>plain &amp; &#x41;</p>'
    )
    assert html_text(html).split() == ["plain", "&", "A"]
    assert missing_glyph_warning(html_text(html)) is None
    assert "U+13000" in missing_glyph_warning(html_text("<p>&#x13000;</p>"))


def test_spaces_joiners_and_controls_need_no_glyph():
    assert missing_glyph_warning("a\u00a0b\u200dc\ufe0f\u00ad\u2028\t\u3000d") is None


def test_the_warning_names_a_few_and_counts_the_rest():
    warning = missing_glyph_warning("".join(chr(0xE000 + n) for n in range(20)))
    assert warning.startswith("20 character(s)")
    assert "U+E007" in warning
    assert "U+E008" not in warning
    assert "and 12 more" in warning


def test_the_character_maps_are_read_once_and_cover_what_the_fonts_claim():
    assert bundled_code_points() is bundled_code_points()
    covered = bundled_code_points()
    assert all(ord(char) in covered for char in COVERED.replace(" ", ""))
    assert ord(HIEROGLYPH) not in covered
