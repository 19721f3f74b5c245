"""The visible signature box: its text alone, without pyHanko's logo behind it."""

from __future__ import annotations

import io

import pikepdf

from rendering.postprocess.signing import pdf_sign
from tests.accounts.pkcs12_factory import make_pkcs12
from tests.rendering.postprocess.conftest import render


def _drawn(stream: pikepdf.Object) -> list[str]:
    """The operators of the appearance and of every form XObject it draws, nested."""
    operators = [str(op) for _, op in pikepdf.parse_content_stream(stream)]
    for xobject in (stream.get("/Resources", {}).get("/XObject", {}) or {}).values():
        operators += _drawn(xobject)
    return operators


def test_the_visible_box_shows_its_text_without_pyhankos_logo():
    signed = pdf_sign(
        render({}).content, pkcs12_data=make_pkcs12(), password="p12-pass", visible=True
    )
    with pikepdf.open(io.BytesIO(signed.content)) as pdf:
        (widget,) = [a for a in pdf.pages[0].get("/Annots", []) if a.get("/FT") == "/Sig"]
        operators = _drawn(widget.AP.N)
    assert "Tj" in operators or "TJ" in operators  # the signer's text is drawn
    # pyHanko's logo is filled vector art (`f` operators); the text and border fill nothing.
    assert "f" not in operators
    assert "f*" not in operators
