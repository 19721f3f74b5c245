"""Factur-X: the CII XML checked against its XSD, then embedded and read back."""

from __future__ import annotations

import io
import logging

import pikepdf
import pytest

from rendering.errors import ApplicationError
from rendering.postprocess.document_options import EInvoice
from rendering.postprocess.einvoice import e_invoice_check
from tests.rendering.postprocess.conftest import render, sample_cii_xml


def test_the_invoice_xml_is_a_pdfa3_attachment_with_relationship_data_and_factur_x_xmp():
    xml = sample_cii_xml()
    rendered = render(
        {"pdf": {"e_invoice": {"xml": xml, "profile": "en16931"}, "metadata": {"title": "INV-42"}}}
    )
    with pikepdf.open(io.BytesIO(rendered.content)) as pdf:
        attached = pdf.attachments["factur-x.xml"]
        assert attached.get_file().read_bytes() == xml.encode("utf-8")
        assert attached.obj.AFRelationship == "/Data"
        assert attached.get_file().mime_type == "text/xml"
        assert attached.obj.objgen in {spec.objgen for spec in pdf.Root.AF}
        meta = pdf.open_metadata()
        assert meta["pdfaid:part"] == "3"
        assert meta["pdfaid:conformance"] == "B"
        fx = "{urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#}"
        assert meta[f"{fx}ConformanceLevel"] == "EN 16931"
        assert meta[f"{fx}DocumentType"] == "INVOICE"
        # The PDF/A-3 extension schema that declares the fx: properties is there too.
        assert "pdfaExtension:schemas" in str(pdf.Root.Metadata.read_bytes())
        assert pdf.Root.OutputIntents[0].S == "/GTS_PDFA1"
    checks = {c["name"]: c for c in rendered.compliance["checks"]}
    assert checks["e_invoice_attachment"]["passed"], checks
    assert checks["e_invoice_xmp"]["passed"], checks
    assert checks["pdfa_identification"]["passed"], checks


def test_xml_that_fails_the_schema_is_a_422_with_the_schemas_message(caplog):
    broken = sample_cii_xml().replace("<ram:TypeCode>380</ram:TypeCode>", "")
    with caplog.at_level(logging.DEBUG), pytest.raises(ApplicationError) as raised:
        e_invoice_check(EInvoice(xml=broken, profile="en16931"))
    # The tenant's invoice (and the XSD's error quoting it) goes to the tenant, not the logs.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert raised.value.http_status == 422
    assert raised.value.code == "e_invoice_invalid"
    assert "IssueDateTime': This element is not expected" in raised.value.message


def test_malformed_xml_is_a_422_too():
    with pytest.raises(ApplicationError) as raised:
        e_invoice_check(EInvoice(xml="<rsm:CrossIndustryInvoice>", profile="en16931"))
    assert raised.value.http_status == 422
    assert "not a valid XML file" in raised.value.message


def test_the_sample_invoice_passes_the_en16931_schema():
    e_invoice_check(EInvoice(xml=sample_cii_xml(), profile="en16931"))
