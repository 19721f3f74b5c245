"""A file template's source: the file itself as a data URI (a pdf-form's PDF, a docx
template's Word document), so it is versioned, limited and stored like any text source."""

from __future__ import annotations

import base64
import binascii

from rendering.errors import TemplateSyntaxError


def file_source(content: bytes, mime: str) -> str:
    """A file as a template's source."""
    return f"data:{mime};base64," + base64.b64encode(content).decode("ascii")


def file_content(source: str, mime: str, *, engine: str, holds: str, placeholder: str) -> bytes:
    """The file a template's source holds; a template error saying what is wrong."""
    prefix = f"data:{mime};base64,"
    if not source.startswith(prefix):
        raise TemplateSyntaxError(
            f"A {engine} template is {holds} given as a data URI: {prefix}<{placeholder}> (or "
            "`template_file` with the base64 alone)."
        )
    try:
        return base64.b64decode(source[len(prefix) :], validate=True)
    except (binascii.Error, ValueError):
        raise TemplateSyntaxError(f"The {engine} template's base64 does not decode.") from None
