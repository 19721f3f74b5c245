"""A word too long for any line is named in a warning on every renderer, instead of being
cut off at the page's edge without a word; CSS that breaks it (on weasyprint and chromium)
or ordinary long words (a URL) warn about nothing."""

from __future__ import annotations

import time

from rendering.long_words import UNBREAKABLE_CHARS, unbreakable_word_warning
from tests.conftest import pdf_text
from tests.rendering.conftest import render

BREAK_ANYWHERE = "p { overflow-wrap: anywhere; }"


def test_a_3_mb_word_is_named_with_its_length_quickly():
    word = "x" * (3 * 1024 * 1024)
    started = time.monotonic()
    warning = unbreakable_word_warning(f"Total: {word} end", css="", renderer="xhtml2pdf")
    assert time.monotonic() - started < 2
    assert warning is not None
    assert "A word of 3,145,728 characters without a space" in warning
    assert "it begins “xxxxxxxxxxxxxxxxxxxxxxxx…”" in warning
    assert "cut off at the page's edge" in warning


def test_words_that_fit_a_line_and_breakable_ones_warn_about_nothing():
    url = "https://reports.example.com/" + "/".join(["segment"] * 60)  # breaks at slashes
    assert unbreakable_word_warning(url, css="", renderer="xhtml2pdf") is None
    fits = "y" * (UNBREAKABLE_CHARS - 1)
    assert unbreakable_word_warning(f"a {fits} b", css="", renderer="xhtml2pdf") is None
    long = "z" * UNBREAKABLE_CHARS
    assert unbreakable_word_warning(long, css=BREAK_ANYWHERE, renderer="weasyprint") is None
    assert unbreakable_word_warning(long, css=BREAK_ANYWHERE, renderer="chromium") is None
    # xhtml2pdf has no overflow-wrap: the CSS does not save it.
    assert unbreakable_word_warning(long, css=BREAK_ANYWHERE, renderer="xhtml2pdf")


def test_every_renderer_warns_about_a_word_it_cuts_off(renderer):
    rendered = render(renderer, "<p>Before {{word}} after</p>", data={"word": "w" * 5000})
    assert "Before" in pdf_text(rendered.content)[1]
    long_words = [w for w in rendered.warnings if "without a space" in w]
    assert len(long_words) == 1, rendered.warnings
    assert "A word of 5,000 characters" in long_words[0]


def test_a_template_that_breaks_words_in_its_own_style_is_not_warned(modern_renderer):
    html = f"<style>{BREAK_ANYWHERE}</style><p>{{{{word}}}}</p>"
    rendered = render(modern_renderer, html, data={"word": "w" * 5000})
    assert not [w for w in rendered.warnings if "without a space" in w]
    assert pdf_text(rendered.content)[0] >= 1
