"""Gotenberg's PDF-engine routes (/forms/pdfengines/…) on PDFs people already have, as
jobs: the uploaded PDFs become a pdf-form job with no data (passed through, merged in
order) and the form's fields its steps; the answer is the PDF once the job finished.
Routes that Gotenberg runs per file run a job per file and answer a ZIP of several.
Webhook mode and Idempotency-Key as on the Chromium and LibreOffice routes."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from django.http import HttpResponse, JsonResponse
from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers
from rest_framework.request import Request

from dropins.common import (
    adapter_submit,
    job_failure,
    job_wait,
    pdf_bytes,
    pdf_response,
    warnings_header,
)
from dropins.gotenberg import (
    gotenberg_answer,
    output_filename,
    trace_of,
    webhook_fields,
    webhook_submit,
)
from dropins.gotenberg_download import downloads
from dropins.gotenberg_pdfengines_form import (
    COMMON_FIELDS,
    fields_check,
    flatten_wanted,
    layer_files,
    pdf_uploads,
    split_ask,
    steps_from_fields,
)
from dropins.gotenberg_route import (
    GotenbergApi,
    Post,
    gotenberg_form,
    gotenberg_schema,
    optional_text,
)
from jobs.models import JobStatus, PdfJob
from rendering.errors import InvalidInput
from rendering.forms import FORM_ENGINE
from rendering.pdf_files import MAX_PDF_FILES, pdf_files_source

_STAMP = ("stampSource", "stampExpression", "stampPages", "stampOptions")
_WATERMARK = ("watermarkSource", "watermarkExpression", "watermarkPages", "watermarkOptions")
_ROTATE = ("rotateAngle", "rotatePages")
_ENCRYPT = ("userPassword", "ownerPassword")
_SPLIT = ("splitMode", "splitSpan", "splitUnify")


@dataclass(frozen=True)
class Part:
    """One job of a request: the file name it answers under, its PDFs and its steps."""

    name: str
    pdfs: list[bytes]
    steps: list[dict[str, Any]]
    # The uploaded files it holds, by name (metadata/read answers under each).
    files: tuple[str, ...] = ()


def _schema(route: str, fields: tuple[str, ...], answer: str) -> Callable[[Post], Post]:
    form: dict[str, Any] = {"files": serializers.ListField(child=serializers.FileField())}
    if any(name.startswith(("stamp", "watermark")) for name in fields):
        form |= {
            layer: serializers.FileField(required=False, help_text=f"{layer}Source image or pdf")
            for layer in ("stamp", "watermark")
        }
    form |= {name: optional_text() for name in (*fields, *COMMON_FIELDS)}
    name = "".join(part.title() for part in re.split(r"[/_]", route))
    return gotenberg_schema(
        operation_id=f"gotenberg_pdfengines_{route.replace('/', '_')}",
        summary=f"Gotenberg drop-in: PDF engines {route} (waits for the job)",
        form_name=f"GotenbergPdfEngines{name}Form",
        form=form,
        responses={
            (200, answer): OpenApiTypes.OBJECT
            if answer == "application/json"
            else OpenApiTypes.BINARY
        },
    )


class _PdfEnginesApi(GotenbergApi):
    fields: tuple[str, ...] = ()
    # True: every PDF is one job (Gotenberg treats each file apart; several answer a ZIP).
    per_file = True
    # Webhook mode (Gotenberg-Webhook-Url): the one PDF goes to the webhook, as on the
    # Chromium and LibreOffice routes; not for routes that answer something else.
    webhook = True
    flatten = False
    warnings: tuple[str, ...] = ()
    # The stamp's and watermark's files of this request (layer_files).
    layers: Mapping[str, tuple[str, bytes]] = MappingProxyType({})

    def steps(self, fields: dict[str, str]) -> list[dict[str, Any]]:
        return steps_from_fields(fields, self.layers)

    def plan(
        self, request: Request, pdfs: list[tuple[str, bytes]], fields: dict[str, str]
    ) -> list[Part]:
        """The jobs to run: one of every file (merge, metadata/read) or one per file."""
        steps = self.steps(fields)
        if not self.per_file:
            names = tuple(name for name, _ in pdfs)
            return [Part(pdfs[0][0], [content for _, content in pdfs], steps, names)]
        return [Part(name, [content], steps, (name,)) for name, content in pdfs]

    def post(self, request: Request) -> HttpResponse:
        form = gotenberg_form(request)
        fields = form.fields
        fields_check(fields, self.fields)
        uploaded = sum(len(content) for _, _, content in form.uploads)
        files = form.uploads + downloads(fields.get("downloadFrom") or "", uploaded_bytes=uploaded)
        pdfs = pdf_uploads(files)
        self.layers = layer_files(files)
        self.flatten = flatten_wanted(fields)
        self.warnings = tuple(
            f"{name} is ignored: the {name[:-7]} is drawn our way (translucent diagonal "
            "text, or the image or PDF page centred)."
            for name in ("stampOptions", "watermarkOptions")
            if (fields.get(name) or "").strip() not in ("", "{}")
        )
        webhook = webhook_fields(request.headers)
        if webhook is not None and not self.webhook:
            raise InvalidInput(f"{request.path} answers the file itself (no webhook mode).")
        parts = self.plan(request, pdfs, fields)
        if webhook is not None and len(parts) > 1:
            raise InvalidInput(
                f"Webhook mode sends one PDF; this request makes {len(parts)} files: send "
                "one file per request, or no webhook headers for a ZIP of them."
            )
        key = idempotency_key(request)
        # All queued before any is awaited: the workers take the parts side by side.
        queued = [
            self.submit(request, part, key=part_key(key, n, len(parts)), webhook=webhook)
            for n, part in enumerate(parts)
        ]
        if webhook is not None:
            return gotenberg_answer(request, queued[0], trace=trace_of(request), webhook=True)
        jobs = [job_wait(request, job) for job in queued]
        return self.answer(request, jobs, parts, jobs_headers(request, jobs))

    def submit(
        self,
        request: Request,
        part: Part,
        *,
        key: str = "",
        webhook: tuple[str, dict[str, Any]] | None = None,
    ) -> PdfJob:
        options: dict[str, Any] = {
            "filename": output_filename(request) or part.name.rsplit(".", 1)[0]
        }
        if self.flatten:
            options["flatten"] = True
        return adapter_submit(
            request,
            **webhook_submit(webhook, trace_of(request)),
            html_template=pdf_files_source(part.pdfs),
            engine=FORM_ENGINE,  # with no data: the PDFs as they are (rendering.pdf_files)
            data={},
            options=options,
            steps=part.steps or None,
            warnings=list(self.warnings),
            idempotency_key=key,
        )

    def answer(
        self, request: Request, jobs: list[PdfJob], parts: list[Part], headers: dict[str, str]
    ) -> HttpResponse:
        return files_answer(request, jobs, [part.name for part in parts], headers)


def _layer_check(request: Request, layer: str) -> None:
    """A stamp or watermark is its text (`{layer}Expression`) unless it is a file (image or
    pdf, `{layer}Source`), whose expression may be left out: InvalidInput without either."""
    if request.POST.get(f"{layer}Expression"):
        return
    if request.POST.get(f"{layer}Source", "").strip() not in ("image", "pdf"):
        raise InvalidInput(f"{layer}Expression is required: the {layer}'s text.")


def idempotency_key(request: Request) -> str:
    return request.headers.get("Idempotency-Key", "").strip()


def part_key(key: str, index: int, parts: int) -> str:
    """The Idempotency-Key of one of a request's `parts` jobs: the key itself for one job,
    the key and the part's number for several (a replay finds each again)."""
    return f"{key}#{index + 1}" if key and parts > 1 else key


def jobs_headers(request: Request, jobs: list[PdfJob]) -> dict[str, str]:
    """Gotenberg's trace (the first job's id when none was sent), every job's id, and the
    first job's warnings."""
    headers = {"Gotenberg-Trace": trace_of(request) or str(jobs[0].job_id)}
    headers["X-Job-Id"] = ",".join(str(job.job_id) for job in jobs)
    return headers | warnings_header(jobs[0].warnings)


def files_answer(
    request: Request, jobs: list[PdfJob], names: list[str], headers: dict[str, str]
) -> HttpResponse:
    """Finished jobs as Gotenberg answers their files: one job's PDF, or a ZIP of each
    job's PDF under its name (a failed job's error otherwise)."""
    if len(jobs) == 1:
        return pdf_response(jobs[0], headers=headers)
    # Each part is a finished job's PDF: zipped as bytes, not parsed, on this process.
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for job, name in zip(jobs, unique_names(names), strict=True):
            archive.writestr(name, pdf_bytes(job))
    response = HttpResponse(out.getvalue(), content_type="application/zip", headers=headers)
    wanted = output_filename(request) or "result"
    response["Content-Disposition"] = f'attachment; filename="{wanted}.zip"'
    return response


class GotenbergMergeApi(_PdfEnginesApi):
    fields = ("flatten", "metadata", *_ROTATE, *_WATERMARK, *_STAMP, *_ENCRYPT)
    per_file = False

    @_schema("merge", fields, "application/pdf")
    def post(self, request: Request) -> HttpResponse:
        """The PDFs, in the alphabetical order of their file names, as one."""
        return super().post(request)


class GotenbergSplitApi(_PdfEnginesApi):
    per_file = False  # the count of pages comes first, from one job of every file
    fields = (*_SPLIT, "flatten", "metadata", *_ROTATE, *_WATERMARK, *_STAMP, *_ENCRYPT)

    @_schema("split", fields, "application/pdf")
    def post(self, request: Request) -> HttpResponse:
        """Each PDF split into intervals of splitSpan pages, or the pages splitSpan names
        (one file each, or one file with splitUnify=true); several files answer a ZIP."""
        return super().post(request)

    def plan(
        self, request: Request, pdfs: list[tuple[str, bytes]], fields: dict[str, str]
    ) -> list[Part]:
        ask = split_ask(fields)
        steps = self.steps(fields)
        if ask.unify:
            split = {"type": "split", "pages": ask.span}
            return [Part(name, [content], [split, *steps], (name,)) for name, content in pdfs]
        # How many files come out depends on the page counts, which the worker reads
        # (a pass-through job); then each output file is a job of its own.
        counted = job_wait(request, self.submit(request, super().plan(request, pdfs, {})[0]))
        if counted.status != JobStatus.COMPLETED:
            raise job_failure(counted)
        counts = [source["PageCount"] for source in (counted.compliance or {})["sources"]]
        parts = []
        for (name, content), count in zip(pdfs, counts, strict=True):
            stem = name.rsplit(".", 1)[0]
            for index, pages in enumerate(ask.ranges(count)):
                split = {"type": "split", "pages": pages}
                parts.append(Part(f"{stem}_{index}.pdf", [content], [split, *steps], (name,)))
        if not 0 < len(parts) <= MAX_PDF_FILES:
            raise InvalidInput(
                f"splitSpan makes {len(parts)} files; at most {MAX_PDF_FILES} are answered at once."
            )
        return parts


class GotenbergFlattenApi(_PdfEnginesApi):
    fields = ()

    @_schema("flatten", fields, "application/pdf")
    def post(self, request: Request) -> HttpResponse:
        """Each PDF with its form fields drawn into its pages."""
        return super().post(request)

    def steps(self, fields: dict[str, str]) -> list[dict[str, Any]]:
        return [{"type": "flatten"}]


class GotenbergEncryptApi(_PdfEnginesApi):
    fields = _ENCRYPT

    @_schema("encrypt", fields, "application/pdf")
    def post(self, request: Request) -> HttpResponse:
        """Each PDF encrypted (AES-256) with userPassword and/or ownerPassword."""
        if not (request.POST.get("userPassword") or request.POST.get("ownerPassword")):
            raise InvalidInput("Send userPassword, ownerPassword or both.")
        return super().post(request)


class GotenbergRotateApi(_PdfEnginesApi):
    fields = (*_ROTATE, "metadata", *_ENCRYPT)

    @_schema("rotate", fields, "application/pdf")
    def post(self, request: Request) -> HttpResponse:
        """Each PDF's pages (rotatePages, else all) turned by rotateAngle."""
        if not request.POST.get("rotateAngle"):
            raise InvalidInput("rotateAngle is required: 90, 180 or 270.")
        return super().post(request)


class GotenbergStampApi(_PdfEnginesApi):
    fields = (*_STAMP, *_WATERMARK, *_ROTATE, "metadata", *_ENCRYPT)

    @_schema("stamp", fields, "application/pdf")
    def post(self, request: Request) -> HttpResponse:
        """Each PDF with stampExpression drawn over every page, or the image or PDF sent
        under stamp (stampSource=image or pdf)."""
        _layer_check(request, "stamp")
        return super().post(request)


class GotenbergWatermarkApi(_PdfEnginesApi):
    fields = (*_WATERMARK, *_STAMP, *_ROTATE, "metadata", *_ENCRYPT)

    @_schema("watermark", fields, "application/pdf")
    def post(self, request: Request) -> HttpResponse:
        """Each PDF with watermarkExpression drawn under the content of every page, or
        the image or PDF sent under watermark (watermarkSource=image or pdf)."""
        _layer_check(request, "watermark")
        return super().post(request)


class GotenbergMetadataWriteApi(_PdfEnginesApi):
    fields = ("metadata",)

    @_schema("metadata/write", fields, "application/pdf")
    def post(self, request: Request) -> HttpResponse:
        """Each PDF with the document information `metadata` sets."""
        if not request.POST.get("metadata"):
            raise InvalidInput('metadata is required: a JSON object such as {"Title": "Q3"}.')
        return super().post(request)


class GotenbergMetadataReadApi(_PdfEnginesApi):
    fields = ()
    per_file = False  # one job reads every file's information, in the worker
    webhook = False  # the answer is JSON, not a PDF

    @_schema("metadata/read", fields, "application/json")
    def post(self, request: Request) -> HttpResponse:
        """{filename: {metadata}} of each PDF, as Gotenberg answers."""
        return super().post(request)

    def answer(
        self, request: Request, jobs: list[PdfJob], parts: list[Part], headers: dict[str, str]
    ) -> HttpResponse:
        job = jobs[0]
        if job.status != JobStatus.COMPLETED:
            raise job_failure(job)
        sources = (job.compliance or {}).get("sources") or []
        return JsonResponse(dict(zip(parts[0].files, sources, strict=False)), headers=headers)


def unique_names(names: list[str]) -> list[str]:
    """The names, a repeated one numbered (`a.pdf`, `a (2).pdf`): a ZIP's entries must
    differ (a.docx and a.md both answer as a.pdf)."""
    seen: set[str] = set()
    unique = []
    for name in names:
        stem, dot, extension = name.rpartition(".") if "." in name else (name, "", "")
        candidate, number = name, 1
        while candidate in seen:
            number += 1
            candidate = f"{stem} ({number}){dot}{extension}"
        seen.add(candidate)
        unique.append(candidate)
    return unique
