"""The fonts the service ships (rendering/assets/fonts) as @font-face rules for every document."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

FONTS_DIR = Path(__file__).with_name("assets") / "fonts"
SANS, CJK, HANGUL = "Report Sans", "Report CJK", "Report Hangul"
# xhtml2pdf draws each character in the first family of the list that has a glyph for it,
# so one stack covers Latin, Greek and Cyrillic, then Chinese/Japanese, then Korean.
DEFAULT_STACK = f"'{SANS}', '{CJK}', '{HANGUL}'"
_FACES = (  # (family, file, bold)
    (SANS, "ReportSans.ttf", False),
    (SANS, "ReportSans-Bold.ttf", True),
    (CJK, "ReportCJK.ttf", False),
    (CJK, "ReportCJK.ttf", True),
    (HANGUL, "ReportHangul.ttf", False),
    (HANGUL, "ReportHangul.ttf", True),
)
_CJK_TEXT = re.compile("[\u3000-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff00-\uffef]")


def _path_url(path: Path) -> str:
    # An absolute path inside the assets directory: the resource policy allows exactly it.
    return path.as_posix()


@cache
def _face_rules(url_for: Callable[[Path], str]) -> dict[str, str]:
    rules: dict[str, str] = {}
    for family, filename, bold in _FACES:
        weight = "bold" if bold else "normal"
        rules[family] = rules.get(family, "") + (
            f'@font-face {{ font-family: "{family}"; font-weight: {weight}; '
            f'src: url("{url_for(FONTS_DIR / filename)}"); }}\n'
        )
    return rules


def fonts_css(document: str = "", *, url_for: Callable[[Path], str] = _path_url) -> str:
    """@font-face rules and the default font stack for `document`. The CJK and Hangul
    faces (3.5 MB) are declared only when the document has such text or names them,
    since ReportLab parses every declared font on every render. `url_for` turns a font
    file into the URL the renderer loads it by."""
    rules = _face_rules(url_for)
    css = rules[SANS]
    if _CJK_TEXT.search(document) or "report cjk" in document.lower():
        css += rules[CJK] + rules[HANGUL]
    return f"{css}body {{ font-family: {DEFAULT_STACK}; }}\n"
