"""Gotenberg's LibreOffice route (/forms/libreoffice/convert) as conversion jobs: the
uploaded office files, merged as Gotenberg merges them (by file name) with merge=true, else
a job per file, with its page ranges, orientation, PDF/A and PDF/UA; the answer is the PDF
(or a ZIP of one PDF per file, as the PDF-engine routes answer) once the jobs finished, or
a 204 in webhook mode, as on the Chromium routes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers
from rest_framework.request import Request

from dropins.common import PDF_ANSWER, adapter_submit, job_wait
from dropins.gotenberg import (
    gotenberg_answer,
    output_filename,
    pdf_output_form,
    trace_of,
    webhook_fields,
    webhook_submit,
)
from dropins.gotenberg_download import downloads
from dropins.gotenberg_form import form_flag, form_refused_check, metadata_options
from dropins.gotenberg_pdfengines import files_answer, idempotency_key, jobs_headers, part_key
from dropins.gotenberg_route import (
    WEBHOOK_ANSWER,
    GotenbergApi,
    gotenberg_form,
    gotenberg_schema,
    optional_text,
)
from rendering.errors import InvalidInput
from rendering.office import OFFICE_ENGINE, office_check, office_source
from reports.limits import limits_from_settings

_PDFA = {"pdf/a-2b": "pdf/a-2b", "pdf/a-3b": "pdf/a-3b"}
# Gotenberg's fields we cannot honour: refused when sent with anything but its default.
_REFUSED_UNLESS = {
    "password": ("",),
    "splitMode": ("",),
    "flatten": ("false",),
    "losslessImageCompression": ("false",),
    "reduceImageResolution": ("false",),
    "nativeWatermarkText": ("",),
}


def office_form_options(fields: Mapping[str, str]) -> dict[str, Any]:
    """Our options from the route's form fields; InvalidInput naming one we refuse."""
    form_refused_check(fields, _REFUSED_UNLESS)
    options: dict[str, Any] = {}
    if form_flag("landscape", fields.get("landscape") or "false"):
        options["orientation"] = "landscape"
    if ranges := (fields.get("nativePageRanges") or "").strip():
        options["page_ranges"] = ranges
    if fields.get("metadata"):
        options |= metadata_options(fields["metadata"])
    pdfa = (fields.get("pdfa") or "").strip().lower()
    pdfua = form_flag("pdfua", fields.get("pdfua") or "false")
    if pdfa and pdfa not in _PDFA:
        raise InvalidInput(f"pdfa={fields['pdfa']} is not offered; use PDF/A-2b or PDF/A-3b.")
    if pdfa and pdfua:
        raise InvalidInput("Send pdfa or pdfua=true, not both: LibreOffice writes one of them.")
    if pdfa or pdfua:
        options["pdf"] = {"profile": _PDFA.get(pdfa) or "pdf/ua-1"}
    return options


class GotenbergLibreOfficeApi(GotenbergApi):
    @gotenberg_schema(
        operation_id="gotenberg_convert_libreoffice",
        summary="Gotenberg drop-in: office files to PDF with LibreOffice (waits for the job)",
        form_name="GotenbergLibreOfficeForm",
        form={
            "files": serializers.ListField(child=serializers.FileField()),
            "landscape": serializers.BooleanField(required=False),
            "nativePageRanges": optional_text(),
            "merge": serializers.BooleanField(required=False),
            **pdf_output_form(),
            "downloadFrom": optional_text(),
        },
        responses={
            **PDF_ANSWER,
            (200, "application/zip"): OpenApiTypes.BINARY,
            **WEBHOOK_ANSWER,
        },
    )
    def post(self, request: Request) -> HttpResponse:
        """Office files (docx, xlsx, pptx, odt, ods, odp, rtf, txt, html, md) to one PDF
        (merge=true), or to a ZIP of one PDF per file."""
        form = gotenberg_form(request)
        fields = form.fields
        options = office_form_options(fields)
        uploaded = sum(len(content) for _, _, content in form.uploads)
        fetched = downloads(fields.get("downloadFrom") or "", uploaded_bytes=uploaded)
        if stray := sorted({field for field, _, _ in fetched if field != "files"}):
            raise InvalidInput(f"downloadFrom: this route takes no {', '.join(stray)} file.")
        # Gotenberg's clients send each file under a field of its own name, or all under
        # `files`; Gotenberg merges them in the order of their names (downloaded files
        # as if they had been uploaded).
        files = sorted((name, content) for _field, name, content in form.uploads + fetched)
        if not files:
            raise InvalidInput("Upload at least one file to convert (form field files).")
        if wanted := output_filename(request):
            options["filename"] = wanted
        webhook = webhook_fields(request.headers)
        office_check(files, limits=limits_from_settings())
        # One job of every file (merged), or, as Gotenberg does without merge, one per file.
        parts = (
            [files] if form_flag("merge", fields.get("merge") or "false") else [[f] for f in files]
        )
        if webhook is not None and len(parts) > 1:
            raise InvalidInput(
                "Webhook mode sends one PDF: send merge=true, or one file per request."
            )
        trace, key = trace_of(request), idempotency_key(request)
        jobs = [
            adapter_submit(
                request,
                **webhook_submit(webhook, trace),
                html_template=office_source(part),
                engine=OFFICE_ENGINE,
                data={},
                options=options,
                idempotency_key=part_key(key, index, len(parts)),
            )
            for index, part in enumerate(parts)
        ]
        if len(jobs) == 1:
            return gotenberg_answer(request, jobs[0], trace=trace, webhook=webhook is not None)
        jobs = [job_wait(request, job) for job in jobs]
        names = [f"{part[0][0].rsplit('.', 1)[0]}.pdf" for part in parts]
        return files_answer(request, jobs, names, jobs_headers(request, jobs))
