"""The caret excerpt every engine's syntax error ends with: the failing line of the
person's own source, numbered, with a caret under the column (compilers' style)."""

from __future__ import annotations

import re

_TAG_OPEN = re.compile(r"\{[{%#]")
_WIDTH = 160  # a minified one-line template would otherwise fill the message


def source_excerpt(source: str, line: int, column: int | None = None) -> str:
    """`line` is 1-based, `column` 0-based; without a column the caret goes under the
    line's first tag (the engines that give no column report the tag's line)."""
    lines = source.splitlines() or [""]
    line = min(max(line, 1), len(lines))
    text = lines[line - 1].expandtabs(4)
    if column is None:
        tag = _TAG_OPEN.search(text)
        column = tag.start() if tag else len(text) - len(text.lstrip())
    column = min(max(column, 0), len(text))
    start = max(0, column - _WIDTH // 2) if len(text) > _WIDTH else 0
    shown = text[start : start + _WIDTH]
    number = f"{line:>3}"
    pad = " " * len(number)
    return f"{number} | {shown}\n{pad} | {' ' * (column - start)}^"


def column_from_jison(line_text: str, pre_caret: str) -> int:
    """The column a handlebars (jison) parse error points at. Jison's own excerpt drops the
    newlines of the text before the caret, so the real column is the longest start of the
    failing line that ends that text."""
    for column in range(min(len(line_text), len(pre_caret)), 0, -1):
        if pre_caret.endswith(line_text[:column]):
            return column
    return 0
