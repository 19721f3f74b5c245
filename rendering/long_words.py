"""A word too long for any line (no space, hyphen or break opportunity in it) is cut off
at the page's edge by every renderer, silently; this finds one and says so."""

from __future__ import annotations

import re

# Longer than the widest line any page size holds at a readable size (A3 landscape at
# 7 pt is ~250 characters), so a word past it is cut off whatever the layout.
UNBREAKABLE_CHARS = 300
# Hyphens and slashes are places a renderer may break a line, as spaces are.
_LONGEST = re.compile(r"[^\s\-/\u00ad\u200b]{" + str(UNBREAKABLE_CHARS) + ",}")
# CSS that lets WeasyPrint and Chromium break inside a word (xhtml2pdf ignores it).
_BREAKS_WORDS = re.compile(
    r"(overflow-wrap|word-wrap)\s*:\s*(anywhere|break-word)|word-break\s*:\s*break-all", re.I
)
WORD_BREAKING_RENDERERS = frozenset({"weasyprint", "chromium"})


def unbreakable_word_warning(text: str, *, css: str, renderer: str) -> str | None:
    """A warning about the longest unbreakable word of `text` (what the document prints),
    or None when every word fits a line or the CSS lets the renderer break it."""
    if renderer in WORD_BREAKING_RENDERERS and _BREAKS_WORDS.search(css):
        return None
    longest = max((len(m.group()) for m in _LONGEST.finditer(text)), default=0)
    if not longest:
        return None
    start = _LONGEST.search(text)
    begins = start.group()[:24] if start else ""
    return (
        f"A word of {longest:,} characters without a space (it begins “{begins}…”) does not "
        "fit on a line: it is cut off at the page's edge. Add spaces or break it up in the "
        "data; on weasyprint or chromium, CSS `overflow-wrap: anywhere` breaks it across lines."
    )
