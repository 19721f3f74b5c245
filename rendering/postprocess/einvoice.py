"""Factur-X / ZUGFeRD e-invoices with the `factur-x` library: the CII XML checked against
the standard's XSD, then embedded in a PDF/A-3 with its relationship and XMP extension."""

from __future__ import annotations

import io
import logging

from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError, RenderError
from rendering.postprocess.checks import Check
from rendering.postprocess.document_options import DocumentMetadata, EInvoice

ATTACHMENT_NAME = "factur-x.xml"
# The XMP fx:ConformanceLevel each level writes (Factur-X 1.0, section 6.2).
_LEVEL_XMP = {
    "minimum": "MINIMUM",
    "basicwl": "BASIC WL",
    "basic": "BASIC",
    "en16931": "EN 16931",
    "extended": "EXTENDED",
}
_FX = "{urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#}"
# facturx (and the pypdf it reads PDFs with) and pikepdf are imported by the functions
# below: submit's check imports this module in every process, and they cost each start
# ~0.1 s. A worker imports them before its pool forks (rendering.preload).
# The library logs every XSD failure at ERROR, with the tenant's XML in it, on its logger
# "factur-x" (not its module's name, "facturx", which an earlier line here silenced).
logging.getLogger("factur-x").setLevel(logging.CRITICAL)


def e_invoice_check(invoice: EInvoice) -> None:
    """A 422 with the schema's own message for XML that is malformed or fails the XSD."""
    from facturx import xml_check_xsd

    try:
        xml_check_xsd(invoice.xml.encode("utf-8"), flavor="factur-x", level=invoice.profile)
    except Exception as exc:  # the library raises bare Exception with the XSD's message
        raise ApplicationError(
            f"options.pdf.e_invoice.xml: {str(exc)[:1000]}",
            code=ErrorCode.E_INVOICE_INVALID,
            http_status=422,
        ) from None


def e_invoice_embed(content: bytes, invoice: EInvoice, metadata: DocumentMetadata) -> bytes:
    """The PDF/A-3 with the XML attached as factur-x.xml (relationship Data) and the
    Factur-X XMP; the library takes the title and subject from the XML unless given."""
    from facturx import generate_from_binary

    given = {"title": metadata.title, "author": metadata.author, "subject": metadata.subject}
    given["keywords"] = ", ".join(metadata.keywords) or "Factur-X, Invoice"
    try:
        pdf: bytes = generate_from_binary(
            content,
            invoice.xml.encode("utf-8"),  # bytes: a str could be read as a file path
            flavor="factur-x",
            level=invoice.profile,
            check_xsd=True,
            pdf_metadata=given if metadata.title else None,
            lang=metadata.lang or None,
            afrelationship="data",
        )
    except Exception as exc:
        raise RenderError(f"The e-invoice could not be embedded: {str(exc)[:500]}") from None
    return pdf


def e_invoice_checks(content: bytes, invoice: EInvoice) -> list[Check]:
    """The attachment's bytes and relationship, and the XMP that names it, read back."""
    import pikepdf

    with pikepdf.open(io.BytesIO(content)) as pdf:
        attached = pdf.attachments.get(ATTACHMENT_NAME)
        data = attached.get_file().read_bytes() if attached is not None else b""
        relationship = str(attached.obj.get("/AFRelationship", "-")) if attached else "-"
        in_af = attached is not None and any(
            spec.objgen == attached.obj.objgen for spec in pdf.Root.get("/AF", [])
        )
        with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
            level = str(meta.get(f"{_FX}ConformanceLevel", ""))
            name = str(meta.get(f"{_FX}DocumentFileName", ""))
    want = _LEVEL_XMP[invoice.profile]
    return [
        Check(
            "e_invoice_attachment",
            data == invoice.xml.encode("utf-8") and relationship == "/Data" and in_af,
            f"{ATTACHMENT_NAME}: {len(data)} bytes "
            f"({'equal to' if data == invoice.xml.encode('utf-8') else 'not'} the XML sent), "
            f"AFRelationship {relationship}, {'in' if in_af else 'missing from'} the catalog's /AF",
        ),
        Check(
            "e_invoice_xmp",
            level == want and name == ATTACHMENT_NAME,
            f"XMP fx:ConformanceLevel={level or '-'} (want {want}), "
            f"fx:DocumentFileName={name or '-'}",
        ),
    ]
