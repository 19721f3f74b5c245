"""What `options.pdf` can be refused for before a job is queued: a profile the renderer
cannot produce (400) and e-invoice XML that fails its schema (422)."""

from __future__ import annotations

from rendering.postprocess.document_options import DocumentOptions, document_renderer_check
from rendering.postprocess.einvoice import e_invoice_check


def document_submit_check(document: DocumentOptions | None, renderer: str) -> None:
    if document is None:
        return
    document_renderer_check(document, renderer)
    if document.e_invoice is not None:
        e_invoice_check(document.e_invoice)
