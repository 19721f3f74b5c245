"""Characters no bundled font can draw. Every renderer falls back to the bundled fonts
(Latin, Greek, Cyrillic, CJK, Hangul), so a character outside all of their character maps
prints as an empty box or not at all, whichever renderer lays it out: the job says which
ones, by code point, once, instead of a renderer-specific message or nothing."""

from __future__ import annotations

import html as html_lib
import re
import unicodedata
from functools import cache

from fontTools.ttLib import TTFont

from rendering.fonts import FONTS_DIR

# Text that is never drawn: scripts, styles, comments, then the tags themselves (their
# attributes hold data URIs, class names and alt text, none of it printed as text).
_HIDDEN = re.compile(
    r"<(script|style|template)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL
)
_TAG = re.compile(r"<[^>]*>")
# Categories no font needs a glyph for: controls, format characters (joiners, variation
# selectors, soft hyphens) and separators (spaces, line and paragraph separators).
_NOT_DRAWN = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
# Variation selectors choose a form of the character before them; they have no glyph.
_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_SHOWN = 8  # code points named in the warning; the rest are counted


@cache
def bundled_code_points() -> frozenset[int]:
    """Every code point some bundled font has a glyph for, read from their character maps
    once per process (~0.2 s for the 3.5 MB of CJK and Hangul faces)."""
    covered: set[int] = set()
    for path in sorted(FONTS_DIR.glob("*.ttf")):
        font = TTFont(path, lazy=True)
        try:
            covered.update(font.getBestCmap() or {})
        finally:
            font.close()
    return frozenset(covered)


def uncovered_characters(text: str) -> list[str]:
    """The distinct characters of `text` that no bundled font has, by code point."""
    covered = bundled_code_points()
    return sorted(
        char
        for char in set(text)  # the distinct characters first: a 20 MB text has few
        if ord(char) not in covered
        and unicodedata.category(char) not in _NOT_DRAWN
        and not _SELECTORS.match(char)
    )


def html_text(html: str) -> str:
    """The characters a document prints as text: without tags, scripts and styles."""
    return html_lib.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", html)))


def _named(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}" if name else f"U+{ord(char):04X}"


def missing_glyph_warning(*texts: str) -> str | None:
    """A warning naming the characters of `texts` (rendered HTML, running headers…) that
    no bundled font has, or None when every character has one."""
    missing = uncovered_characters(" ".join(texts))
    if not missing:
        return None
    named = ", ".join(_named(char) for char in missing[:_SHOWN])
    more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
    return (
        f"{len(missing)} character(s) are in none of the bundled fonts and print as empty "
        f"boxes unless the template's own font has them: {named}{more}."
    )
