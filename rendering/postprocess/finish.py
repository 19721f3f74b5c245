"""A rendered PDF made into the document `options.pdf` asks for, and proven: metadata
where the renderer did not write it, the e-invoice, then every check read back."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from rendering.error_codes import ErrorCode
from rendering.errors import RenderError
from rendering.postprocess.checks import Check, checks_as_json, checks_run
from rendering.postprocess.document_options import DocumentMetadata, DocumentOptions
from rendering.postprocess.einvoice import e_invoice_checks, e_invoice_embed


class ComplianceFailed(RenderError):
    """The PDF does not hold what its profile claims: the job fails, it is not downgraded."""

    code = ErrorCode.COMPLIANCE_FAILED


@dataclass(frozen=True)
class FinishedDocument:
    content: bytes
    compliance: dict[str, Any]


def metadata_apply(content: bytes, metadata: DocumentMetadata) -> bytes:
    """Title, author, subject, keywords and language for a renderer that does not take
    them (xhtml2pdf, Chromium); XMP kept in step with the info dictionary."""
    # Imported when used: the report pipeline imports this module wherever a preview is
    # served, and pikepdf costs that start ~30 ms (rendering.preload, for a worker).
    import pikepdf

    with pikepdf.open(io.BytesIO(content)) as pdf:
        with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
            if metadata.title:
                meta["dc:title"] = metadata.title
            if metadata.author:
                meta["dc:creator"] = [metadata.author]
            if metadata.subject:
                meta["dc:description"] = metadata.subject
            if metadata.keywords:
                meta["pdf:Keywords"] = ", ".join(metadata.keywords)
        if metadata.keywords:  # pikepdf maps dc: fields to the info dictionary, not this one
            pdf.docinfo["/Keywords"] = ", ".join(metadata.keywords)
        if metadata.lang:
            pdf.Root.Lang = pikepdf.String(metadata.lang)
        out = io.BytesIO()
        pdf.save(out)
    return out.getvalue()


def document_finish(content: bytes, document: DocumentOptions) -> FinishedDocument:
    """The finished PDF and its `compliance`; ComplianceFailed naming every failed check."""
    if not document.profile:  # with a profile WeasyPrint wrote them into its own XMP
        content = metadata_apply(content, document.metadata)
    if document.e_invoice is not None:
        content = e_invoice_embed(content, document.e_invoice, document.metadata)
    checks: list[Check] = checks_run(content, document)
    if document.e_invoice is not None:
        checks += e_invoice_checks(content, document.e_invoice)
    failed = [check for check in checks if not check.passed]
    if failed:
        reasons = "; ".join(f"{check.name}: {check.detail}" for check in failed)
        raise ComplianceFailed(
            f"The PDF fails {len(failed)} check(s) of {document.profile or 'its options.pdf'}: "
            f"{reasons}."
        )
    compliance = {
        "profile": document.profile or None,
        "checks": checks_as_json(checks),
        "signature": None,
    }
    return FinishedDocument(content=content, compliance=compliance)
