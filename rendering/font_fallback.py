"""Glyphs a named font lacks fall back to the bundled fonts: every font-family list in a
document's CSS gets the bundled stack appended, so 'Helvetica' keeps its Latin look and
Chinese, Japanese, Korean, Greek and Cyrillic text still finds a face that has it."""

from __future__ import annotations

import re

from rendering.fonts import DEFAULT_STACK

# A declaration's value: plain characters and quoted family names, up to ; } or the end.
_CSS_VALUE = r"""((?:[^;{}<>"']|"[^"<>]*"|'[^'<>]*')+)"""
_CSS_DECLARATION = re.compile(r"(\bfont(?:-family)?\s*:\s*)" + _CSS_VALUE, re.IGNORECASE)
# Inside style="…" a double quote ends the attribute, so only single-quoted names.
_ATTR_DECLARATION = re.compile(r"""(\bfont(?:-family)?\s*:\s*)((?:[^;"'<>]|'[^'"<>]*')+)""", re.I)
_STYLE_ELEMENT = re.compile(r"(<style\b[^>]*>)(.*?)(</style\s*>)", re.IGNORECASE | re.DOTALL)
_STYLE_ATTRIBUTE = re.compile(r'(\sstyle\s*=\s*")([^"]*)(")', re.IGNORECASE)
_IMPORTANT = re.compile(r"\s*!\s*important\s*$", re.IGNORECASE)
# `font:` shorthands that name no family (system fonts, CSS-wide keywords).
_KEYWORD_ONLY = re.compile(
    r"^(inherit|initial|unset|revert|revert-layer|caption|icon|menu|message-box|"
    r"small-caption|status-bar)$",
    re.IGNORECASE,
)


def _extend(match: re.Match[str]) -> str:
    prefix, value = match.group(1), match.group(2)
    trailing = value[len(value.rstrip()) :]
    value = value.rstrip()
    important = _IMPORTANT.search(value)
    core = value[: important.start()] if important else value
    if not core or _KEYWORD_ONLY.match(core.strip()) or "report sans" in core.lower():
        return match.group(0)
    return f"{prefix}{core}, {DEFAULT_STACK}{important.group(0) if important else ''}{trailing}"


def css_font_fallback(css: str) -> str:
    """Append the bundled font stack to each font-family (and font shorthand) in `css`."""
    return _CSS_DECLARATION.sub(_extend, css)


def html_font_fallback(html: str) -> str:
    """The same for the <style> elements and style attributes of an HTML document."""
    html = _STYLE_ELEMENT.sub(
        lambda m: m.group(1) + css_font_fallback(m.group(2)) + m.group(3), html
    )
    return _STYLE_ATTRIBUTE.sub(
        lambda m: m.group(1) + _ATTR_DECLARATION.sub(_extend, m.group(2)) + m.group(3), html
    )
