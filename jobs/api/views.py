"""The integrator REST API: thin views that parse, call a service or selector, and answer."""

from __future__ import annotations

import uuid
from typing import Any

from django.core.files.storage import storages
from django.http import FileResponse, HttpResponseRedirect
from django.http.response import HttpResponseBase
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_api_key
from accounts.throttles import StatusReadThrottle, SubmitThrottle, submit_budget_take
from core.api_pagination import paginated, paginated_schema
from core.api_schema import action_schema
from core.disclosure import public_text
from core.error_codes import ApiErrorCode
from core.exception_handler import flatten_errors
from jobs import selectors, services
from jobs.api import schema
from jobs.api.access import job_for_request
from jobs.api.serializers import (
    JobCreateInputSerializer,
    JobCreateOutputSerializer,
    JobFilterSerializer,
    JobOutputSerializer,
    UsageOutputSerializer,
    WebhookDeliverySerializer,
)
from jobs.api.signed_link import TOKEN, SignedLinkApi
from jobs.links import pdf_download_token_valid, pdf_presigned_url, status_path
from jobs.models import PdfJob
from jobs.quotas import workspace_usage_report
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from workspaces.current import actor_of, workspace_for
from workspaces.permissions import Action


def _job_answer(request: Request, job: PdfJob) -> Response:
    return Response(JobOutputSerializer(job, context=_context(request)).data)


def _context(request: Request) -> dict[str, Any]:
    return {"absolute": request.build_absolute_uri, "actor": actor_of(request)}


def _submit(
    request: Request, fields: dict[str, Any], *, idempotency_key: str = "", **extra: Any
) -> tuple[PdfJob, bool]:
    """job_create from one checked submit body, as the calling key, in its workspace."""
    workspace = workspace_for(request, Action.JOB_SUBMIT)
    return services.job_create(
        owner=request.user,
        workspace=workspace,
        idempotency_key=idempotency_key,
        html_template=fields.get("html_template") or None,
        template_slug=fields.get("template") or None,
        data=fields.get("data"),
        engine=fields.get("engine"),
        options=fields.get("options"),
        callback_url=fields.get("callback_url", ""),
        renderer=fields.get("renderer"),
        helpers=fields.get("helpers", ""),
        cache=fields.get("cache"),
        steps=fields.get("steps"),
        api_key=request_api_key(request),
        **extra,
    )


class JobCreateApi(APIView):
    throttle_classes = [SubmitThrottle]

    @extend_schema(
        operation_id="job_submit",
        summary="Submit a report: queue one PDF job",
        examples=schema.submit_examples(),
        request=JobCreateInputSerializer,
        responses={202: JobCreateOutputSerializer},
        parameters=[schema.IDEMPOTENCY_KEY],
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise serializers.ValidationError("The request body must be a JSON object.")
        serializer = JobCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        job, created = _submit(
            request,
            serializer.validated_data,
            idempotency_key=request.headers.get("Idempotency-Key", "").strip(),
        )
        # Only the three fields the answer has (the full state is the status endpoint's),
        # already in JobCreateOutputSerializer's output form (the schema's): a serializer
        # round trip over three strings cost more than the rest of the answer.
        accepted: dict[str, Any] = {
            "job_id": str(job.job_id),
            "status": str(job.status),
            "status_url": request.build_absolute_uri(status_path(job.job_id)),
        }
        return Response(
            accepted,
            status=status.HTTP_202_ACCEPTED,
            headers={
                "Location": accepted["status_url"],
                **({} if created else {"Idempotent-Replayed": "true"}),
            },
        )


def batch_item_submit(
    request: Request, index: int, item: Any, *, batch_id: uuid.UUID
) -> dict[str, Any]:
    """One item of a batch (runs.api's generate-pdf-batch): its job, or why it was refused
    (the others go on)."""
    answer: dict[str, Any] = dict.fromkeys(("job_id", "status", "status_url", "error", "code"))
    answer["index"] = index
    serializer = JobCreateInputSerializer(data=item)
    if not serializer.is_valid():
        message = "; ".join(flatten_errors(serializer.errors))
        return {**answer, "error": message, "code": ErrorCode.INVALID_DATA}
    # The first item was counted by the view's own throttle; each further one takes one
    # more submit from the key's API_RATE_SUBMIT budget, so a batch is no way around it.
    if index > 0 and not submit_budget_take(request):
        message = "Too many submits for this key's API_RATE_SUBMIT; send this item later."
        return {**answer, "error": message, "code": ApiErrorCode.THROTTLED}
    try:
        job, _ = _submit(request, serializer.validated_data, batch_id=batch_id)
    except ApplicationError as exc:
        # Quotas (PDF_MAX_JOBS_IN_FLIGHT) refuse the items past them, one by one.
        return {**answer, "error": public_text(exc.message), "code": exc.code}
    state = JobOutputSerializer(job, context=_context(request)).data
    return {**answer, **{name: state[name] for name in ("job_id", "status", "status_url")}}


class JobListApi(APIView):
    throttle_classes = [StatusReadThrottle]

    @extend_schema(
        operation_id="job_list",
        summary="List my jobs, newest first",
        parameters=[JobFilterSerializer],
        responses=paginated_schema("PaginatedJobList", JobOutputSerializer),
    )
    def get(self, request: Request) -> Response:
        filters = JobFilterSerializer.of(request)
        workspace = workspace_for(request, Action.JOB_VIEW)
        jobs = selectors.job_list(
            workspace=workspace, status=filters.get("status"), batch_id=filters.get("batch_id")
        )
        return paginated(request, self, jobs, JobOutputSerializer, context=_context(request))


class JobDetailApi(APIView):
    throttle_classes = [StatusReadThrottle]

    @extend_schema(
        operation_id="job_get",
        summary="Get a job's status, progress and PDF link",
        responses=JobOutputSerializer,
    )
    def get(self, request: Request, job_id: str) -> Response:
        return _job_answer(request, job_for_request(request, job_id, Action.JOB_VIEW))


class JobDeliveryListApi(APIView):
    throttle_classes = [StatusReadThrottle]

    @extend_schema(
        operation_id="job_deliveries",
        summary="List a job's webhook deliveries",
        responses=WebhookDeliverySerializer(many=True),
    )
    def get(self, request: Request, job_id: str) -> Response:
        """The job's webhook deliveries (newest first), each with its attempts."""
        job = job_for_request(request, job_id, Action.JOB_VIEW)
        deliveries = job.deliveries.prefetch_related("attempts")
        return Response(WebhookDeliverySerializer(deliveries, many=True).data)


class JobRetryApi(APIView):
    throttle_classes = [SubmitThrottle]  # a retry queues a render like a submit

    @action_schema("job_retry", "Retry a failed job", {202: JobOutputSerializer})
    def post(self, request: Request, job_id: str) -> Response:
        """Send one of my failed jobs to the workers again (409 unless it failed)."""
        job = services.job_retry(job=job_for_request(request, job_id, Action.JOB_RETRY))
        return Response(JobOutputSerializer(job, context=_context(request)).data, status=202)


class JobCancelApi(APIView):
    @action_schema("job_cancel", "Cancel a queued or processing job", JobOutputSerializer)
    def post(self, request: Request, job_id: str) -> Response:
        job = job_for_request(request, job_id, Action.JOB_CANCEL)
        return _job_answer(request, services.job_cancel(job=job))


class JobPdfApi(SignedLinkApi):
    @extend_schema(
        operation_id="job_pdf",
        summary="Download a job's PDF by its signed link",
        parameters=[TOKEN],
        responses={
            (200, "application/pdf"): inline_serializer("Pdf", {}),
            302: OpenApiResponse(description="On S3: to a presigned URL of the PDF."),
        },
    )
    def get(self, request: Request, job_id: str) -> HttpResponseBase:
        self.token_check(request, pdf_download_token_valid, job_id, "job")
        job = selectors.job_get_completed(job_id=job_id)
        # On S3 the client fetches the PDF from the store: no web worker is held for the
        # transfer, and any web host can answer whichever host rendered it.
        if (presigned := pdf_presigned_url(job)) is not None:
            return HttpResponseRedirect(presigned)
        handle = storages["reports"].open(job.pdf_file, "rb")
        return FileResponse(
            handle, content_type="application/pdf", as_attachment=True, filename=job.filename
        )


class UsageApi(APIView):
    throttle_classes = [StatusReadThrottle]

    @extend_schema(
        operation_id="usage_get",
        summary="The workspace's quotas and what it used this day and month (owners)",
        responses=UsageOutputSerializer,
    )
    def get(self, request: Request) -> Response:
        """The workspace's quotas, its use this UTC day and month, and when each resets
        (owners)."""
        workspace = workspace_for(request, Action.USAGE_VIEW)
        answer = {
            "workspace": workspace.slug,
            "quotas": workspace_usage_report(workspace=workspace),
        }
        return Response(UsageOutputSerializer(answer).data)
