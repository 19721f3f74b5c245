"""The integrator REST API: thin views that parse, call a service or selector, and answer."""

from __future__ import annotations

from typing import Any

from django.core.files.storage import storages
from django.http import FileResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs import selectors, services, transitions
from jobs.api_fields import JsonInput, JsonObjectField, PdfOptionsField, QueryFilters
from jobs.events import job_event_payload
from jobs.exceptions import Conflict, NotFound
from jobs.links import pdf_download_token_valid, with_links
from jobs.models import JobStatus, PdfJob
from reports.engines import ENGINE_NAMES


def job_representation(request: Request, job: PdfJob) -> dict[str, Any]:
    return with_links(job_event_payload(job), request.build_absolute_uri)


class JobOutputSerializer(serializers.Serializer):
    """The job's public state (documentation of job_representation's shape)."""

    job_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=JobStatus.choices)
    progress = serializers.IntegerField(min_value=0, max_value=100)
    stage = serializers.CharField()
    error = serializers.CharField(allow_null=True)
    error_code = serializers.CharField(allow_null=True)
    attempts = serializers.IntegerField()
    page_count = serializers.IntegerField(allow_null=True)
    size_bytes = serializers.IntegerField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())
    seq = serializers.IntegerField(help_text="Increases with every event of this job.")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)
    status_url = serializers.URLField()
    pdf_url = serializers.URLField(allow_null=True, help_text="Signed link; set once completed.")


class JobCreateApi(APIView):
    class InputSerializer(JsonInput):
        html_template = serializers.CharField(
            required=False, allow_blank=True, trim_whitespace=False
        )
        template = serializers.SlugField(required=False, allow_blank=True)
        data = JsonObjectField(required=False, default=dict)
        engine = serializers.ChoiceField(choices=ENGINE_NAMES, required=False)
        options = PdfOptionsField(required=False, default=dict)
        callback_url = serializers.URLField(required=False, allow_blank=True, default="")

        class Meta:
            ref_name = "JobCreate"  # the schema's component name (else a bare "Input")

    class OutputSerializer(serializers.Serializer):
        job_id = serializers.UUIDField()
        status = serializers.CharField()
        status_url = serializers.URLField()

        class Meta:
            ref_name = "JobAccepted"

    @extend_schema(
        request=InputSerializer,
        responses={202: OutputSerializer},
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="Repeat a submit safely: the same key and body return the same job.",
            )
        ],
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise serializers.ValidationError("The request body must be a JSON object.")
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fields = serializer.validated_data
        job, created = services.job_create(
            owner=request.user,
            idempotency_key=request.headers.get("Idempotency-Key", "").strip(),
            html_template=fields.get("html_template") or None,
            template_slug=fields.get("template") or None,
            data=fields.get("data"),
            engine=fields.get("engine"),
            options=fields.get("options"),
            callback_url=fields.get("callback_url", ""),
        )
        body = job_representation(request, job)
        return Response(
            {"job_id": body["job_id"], "status": body["status"], "status_url": body["status_url"]},
            status=status.HTTP_202_ACCEPTED,
            headers={
                "Location": body["status_url"],
                **({} if created else {"Idempotent-Replayed": "true"}),
            },
        )


class JobListApi(APIView):
    class Pagination(LimitOffsetPagination):
        default_limit = 50
        max_limit = 200

    class FilterSerializer(QueryFilters):
        status = serializers.ChoiceField(choices=JobStatus.choices, required=False)

    @extend_schema(
        parameters=[FilterSerializer],
        responses=inline_serializer(
            "PaginatedJobList",
            {
                "count": serializers.IntegerField(),
                "next": serializers.URLField(allow_null=True),
                "previous": serializers.URLField(allow_null=True),
                "results": JobOutputSerializer(many=True),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        jobs = selectors.job_list(owner=request.user)
        if wanted := filters.validated_data.get("status"):
            jobs = jobs.filter(status=wanted)
        paginator = self.Pagination()
        page = paginator.paginate_queryset(jobs, request, view=self)
        return paginator.get_paginated_response([job_representation(request, j) for j in page])


class JobDetailApi(APIView):
    @extend_schema(responses=JobOutputSerializer)
    def get(self, request: Request, job_id: str) -> Response:
        return Response(
            job_representation(request, selectors.job_get(owner=request.user, job_id=job_id))
        )


class JobCancelApi(APIView):
    @extend_schema(request=None, responses=JobOutputSerializer)
    def post(self, request: Request, job_id: str) -> Response:
        job = selectors.job_get(owner=request.user, job_id=job_id)
        cancelled = transitions.job_cancel(job_id=job.job_id)
        if cancelled is None:
            job.refresh_from_db()
            raise Conflict(f"Job {job.job_id} is already {job.status}; it cannot be cancelled.")
        return Response(job_representation(request, cancelled))


class JobPdfApi(APIView):
    """Download by signed link: the token in the URL is the credential, so no API key."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("token", str, required=True)],
        responses={(200, "application/pdf"): inline_serializer("Pdf", {})},
    )
    def get(self, request: Request, job_id: str) -> FileResponse:
        token = request.query_params.get("token", "")
        if not pdf_download_token_valid(token, job_id):
            raise NotFound("This download link is invalid or has expired; ask for the job again.")
        job = PdfJob.objects.filter(job_id=job_id, status=JobStatus.COMPLETED).first()
        if job is None or not job.pdf_file:
            raise NotFound(f"Job {job_id} has no PDF.")
        handle = storages["reports"].open(job.pdf_file, "rb")
        return FileResponse(
            handle, content_type="application/pdf", as_attachment=True, filename=job.filename
        )
