"""PDF/A and PDF/UA from WeasyPrint, every claim read back with pikepdf on its own."""

from __future__ import annotations

import io

import pikepdf
import pytest

from rendering.postprocess.finish import ComplianceFailed
from tests.rendering.postprocess.conftest import render

META = {"title": "Q3 report", "author": "Finance", "subject": "Revenue", "keywords": ["q3"]}


def _open(content: bytes) -> pikepdf.Pdf:
    return pikepdf.open(io.BytesIO(content))


@pytest.mark.parametrize(
    ("profile", "part", "level"),
    [("pdf/a-2b", "2", "B"), ("pdf/a-3b", "3", "B"), ("pdf/a-3a", "3", "A")],
)
def test_pdfa_profiles_claim_their_level_with_an_output_intent_and_embedded_fonts(
    profile, part, level
):
    rendered = render({"pdf": {"profile": profile, "metadata": META | {"lang": "en"}}})
    with _open(rendered.content) as pdf:
        meta = pdf.open_metadata()
        assert meta["pdfaid:part"] == part
        assert meta["pdfaid:conformance"] == level
        assert meta["dc:title"] == "Q3 report"
        intents = list(pdf.Root.OutputIntents)
        assert intents[0].S == "/GTS_PDFA1"
        assert len(intents[0].DestOutputProfile.read_bytes()) > 1000  # an ICC profile
        fonts = [
            o
            for o in pdf.objects
            if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/Font"
        ]
        assert fonts
        for font in fonts:
            for descendant in font.get("/DescendantFonts", [font]):
                assert (
                    "/FontFile2" in descendant.FontDescriptor
                    or "/FontFile3" in descendant.FontDescriptor
                )
        assert str(pdf.docinfo.Author) == "Finance"
        assert str(pdf.docinfo.Keywords) == "q3"
        assert str(pdf.Root.Lang) == "en"
        assert ("/StructTreeRoot" in pdf.Root) == (level == "A")
    compliance = rendered.compliance
    assert compliance is not None
    assert compliance["profile"] == profile
    names = {check["name"]: check["passed"] for check in compliance["checks"]}
    assert all(names[name] for name in ("pdfa_identification", "output_intent", "metadata"))
    assert names["fonts_embedded"]


def test_pdf_ua_has_a_structure_tree_a_language_and_its_identification():
    rendered = render({"pdf": {"profile": "pdf/ua-1", "metadata": {"title": "T", "lang": "fr"}}})
    with _open(rendered.content) as pdf:
        assert pdf.Root.MarkInfo.Marked is True
        tree = pdf.Root.StructTreeRoot
        assert len(tree.K) > 0 if isinstance(tree.K, pikepdf.Array) else tree.K is not None
        assert str(pdf.Root.Lang) == "fr"
        meta = pdf.open_metadata()
        assert meta["{http://www.aiim.org/pdfua/ns/id/}part"] == "1"
        assert pdf.Root.ViewerPreferences.DisplayDocTitle is True
    passed = {c["name"]: c["passed"] for c in rendered.compliance["checks"]}
    assert all(passed[name] for name in ("structure_tree", "pdfua_identification", "lang"))


def test_a_watermark_with_an_unembedded_font_fails_the_pdfa_claim_instead_of_downgrading():
    # The watermark is drawn in ReportLab's standard Helvetica, which is not embedded:
    # the PDF would still say PDF/A while breaking it, so the finish refuses it.
    with pytest.raises(ComplianceFailed) as raised:
        render({"watermark": "DRAFT", "pdf": {"profile": "pdf/a-2b"}})
    assert raised.value.code == "compliance_failed"
    assert "fonts_embedded: not embedded: " in raised.value.message
    assert "/Helvetica-Bold" in raised.value.message


def test_metadata_alone_is_written_by_pikepdf_for_xhtml2pdf():
    rendered = render(
        {"pdf": {"metadata": META | {"lang": "de", "keywords": ["a", "b"]}}}, renderer="xhtml2pdf"
    )
    with _open(rendered.content) as pdf:
        assert str(pdf.docinfo.Title) == "Q3 report"
        assert str(pdf.docinfo.Subject) == "Revenue"
        assert str(pdf.docinfo.Keywords) == "a, b"
        assert str(pdf.Root.Lang) == "de"
        assert pdf.open_metadata()["dc:title"] == "Q3 report"
    assert rendered.compliance == {
        "profile": None,
        "checks": [
            {
                "name": "metadata",
                "passed": True,
                "detail": "as asked: Title, Author, Subject, Keywords, Lang",
            }
        ],
        "signature": None,
    }


def test_without_options_pdf_there_is_no_compliance():
    assert render({}).compliance is None
