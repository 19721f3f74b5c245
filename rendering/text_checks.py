"""The one check of a short text option (a header, a PDF's title): a string, control
characters made spaces, at most `limit` characters after trimming."""

from __future__ import annotations

import re
from typing import Any

from rendering.errors import InvalidInput, RenderError

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def clean_text(
    path: str, value: Any, limit: int, *, error: type[RenderError] = InvalidInput
) -> str:
    """`value` cleaned, or `error` naming the field by its `path` (options.title, ...)."""
    if not isinstance(value, str):
        raise error(f"{path} must be a string.")
    text = _CONTROL.sub(" ", value).strip()
    if len(text) > limit:
        raise error(f"{path} is longer than {limit} characters.")
    return text
