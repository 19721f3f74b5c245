"""CSV cells a spreadsheet opens as text: every export of tenant text goes through here."""

from __future__ import annotations

from typing import Any

# A spreadsheet runs a cell that starts like a formula: a template named "=HYPERLINK(..)"
# or an error message echoing "+cmd|..." must stay text (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: Any) -> str:
    """The value as text, with a leading quote when it would start a formula."""
    text = str(value)
    return f"'{text}" if text[:1] in FORMULA_STARTS else text
