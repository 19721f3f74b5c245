"""DocRaptor's POST /docs (and /async_docs), GET /status/{id} and GET /download/{id} as
jobs: the doc's HTML renders with WeasyPrint (print CSS, like DocRaptor's Prince), or
with Chromium when it asks for JavaScript."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import DocRaptorKeyAuthentication
from accounts.throttles import SubmitThrottle
from dropins.common import PDF_ANSWER, adapter_submit, job_wait, page_fetch, pdf_response
from dropins.views import DropInApi, DropInPdfApi
from jobs.api.access import job_for_request
from jobs.links import pdf_path
from jobs.models import JobStatus, PdfJob
from rendering.errors import InvalidInput
from workspaces.permissions import Action

# Options of DocRaptor's that change nothing here; anything else unknown is refused.
_ACCEPTED = {"document_type", "type", "test", "async", "name", "document_content"}
_ACCEPTED |= {"document_url", "javascript", "tag", "help", "strict", "pipeline"}
_ACCEPTED |= {"ignore_resource_errors", "ignore_console_messages", "referrer"}
_STATUS_NAMES = {
    JobStatus.QUEUED: "queued",
    JobStatus.PROCESSING: "working",
    JobStatus.COMPLETED: "completed",
    JobStatus.FAILED: "failed",
    JobStatus.CANCELLED: "failed",
}


def _doc(request: Request) -> dict[str, Any]:
    """The doc, sent flat (the docraptor-* client libraries) or under `doc` (the older
    HTTP API, with user_credentials beside it)."""
    body = request.data if isinstance(request.data, dict) else None
    if body is None:
        raise InvalidInput("The request body must be a JSON object (a doc).")
    doc = body.get("doc", body)
    if not isinstance(doc, dict):
        raise InvalidInput("doc must be an object.")
    return {name: value for name, value in doc.items() if name != "user_credentials"}


def _submit(request: Request, doc: dict[str, Any]) -> PdfJob:
    kind = doc.get("document_type") or doc.get("type") or "pdf"
    if kind != "pdf":
        raise InvalidInput(f"document_type {kind!r} is not offered; this service makes pdf.")
    unknown = sorted(set(doc) - _ACCEPTED)
    if unknown:
        raise InvalidInput(f"Not supported by this adapter: {', '.join(unknown)}.")
    content, url = doc.get("document_content"), doc.get("document_url")
    if bool(content) == bool(url):
        raise InvalidInput("Send exactly one of document_content or document_url.")
    if url:
        content = page_fetch(str(url).strip())
    if not isinstance(content, str):
        raise InvalidInput("document_content must be a string of HTML.")
    options: dict[str, Any] = {}
    if doc.get("test") in (True, "true"):
        options["test_mode"] = True  # watermarked, as DocRaptor's test documents are
    if isinstance(doc.get("name"), str) and doc["name"].strip():
        options["filename"] = doc["name"]
    javascript = doc.get("javascript") in (True, "true")
    return adapter_submit(
        request,
        html_template=content,
        engine="raw",  # a finished document, not a template
        data={},
        options=options,
        renderer="chromium" if javascript else "weasyprint",
        idempotency_key=request.headers.get("Idempotency-Key", "").strip(),
    )


def _status_answer(request: Request, job: PdfJob) -> dict[str, Any]:
    answer: dict[str, Any] = {"status": _STATUS_NAMES[JobStatus(job.status)]}
    if job.status == JobStatus.COMPLETED:
        # The signed link needs no key (DocRaptor's hosted download URLs need none either).
        download = request.build_absolute_uri(pdf_path(job.job_id))
        answer |= {
            "download_id": str(job.job_id),
            "download_key": str(job.job_id),
            "download_url": download,
            "number_of_pages": job.page_count,
        }
    elif job.is_terminal:
        answer |= {
            "message": job.error or f"The document was {job.status}.",
            "code": job.error_code,
        }
    return answer


@extend_schema(tags=["drop-in: DocRaptor"])
class DocraptorApi(DropInApi):
    # DocRaptor's clients send the key as the basic-auth username.
    authentication_classes = [DocRaptorKeyAuthentication]


class DocraptorDocCreateApi(DocraptorApi):
    throttle_classes = [SubmitThrottle]
    force_async = False

    @extend_schema(
        operation_id="docraptor_doc_create",
        summary="DocRaptor drop-in: make a document (the PDF, or {status_id} when async)",
        request=OpenApiTypes.OBJECT,
        responses={
            **PDF_ANSWER,
            (200, "application/json"): inline_serializer(
                "DocraptorAsyncDoc", {"status_id": serializers.CharField()}
            ),
        },
    )
    def post(self, request: Request) -> HttpResponse:
        doc = _doc(request)
        job = _submit(request, doc)
        if self.force_async or doc.get("async") in (True, "true"):
            return Response({"status_id": str(job.job_id)})
        return pdf_response(job_wait(request, job), headers={"X-Job-Id": str(job.job_id)})


class DocraptorAsyncDocCreateApi(DocraptorDocCreateApi):
    force_async = True

    @extend_schema(
        operation_id="docraptor_async_doc_create",
        summary="DocRaptor drop-in: make a document asynchronously ({status_id})",
        request=OpenApiTypes.OBJECT,
        responses=inline_serializer(
            "DocraptorAsyncDocAnswer", {"status_id": serializers.CharField()}
        ),
    )
    def post(self, request: Request) -> HttpResponse:
        return super().post(request)


class DocraptorStatusApi(DocraptorApi):
    @extend_schema(
        operation_id="docraptor_status",
        summary="DocRaptor drop-in: an async document's status",
        responses=inline_serializer(
            "DocraptorStatus",
            {
                "status": serializers.ChoiceField(["queued", "working", "completed", "failed"]),
                "download_id": serializers.CharField(required=False),
                "download_url": serializers.URLField(required=False),
                "number_of_pages": serializers.IntegerField(required=False),
                "message": serializers.CharField(required=False),
            },
        ),
    )
    def get(self, request: Request, status_id: str) -> Response:
        job = job_for_request(request, status_id, Action.JOB_VIEW)
        return Response(_status_answer(request, job))


@extend_schema_view(
    get=extend_schema(
        operation_id="docraptor_download", summary="DocRaptor drop-in: an async document's PDF"
    )
)
class DocraptorDownloadApi(DocraptorApi, DropInPdfApi):
    id_kwarg = "download_id"
