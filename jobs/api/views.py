"""The integrator REST API: thin views that parse, call a service or selector, and answer."""

from __future__ import annotations

from django.core.files.storage import storages
from django.http import FileResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ApiKey
from jobs import selectors, services
from jobs.api.serializers import (
    JobCreateInputSerializer,
    JobCreateOutputSerializer,
    JobFilterSerializer,
    JobOutputSerializer,
    WebhookDeliverySerializer,
)
from jobs.links import pdf_download_token_valid
from jobs.models import PdfJob
from rendering.errors import NotFound


def _job_answer(request: Request, job: PdfJob) -> Response:
    return Response(JobOutputSerializer(job, context={"absolute": request.build_absolute_uri}).data)


class JobCreateApi(APIView):
    @extend_schema(
        request=JobCreateInputSerializer,
        responses={202: JobCreateOutputSerializer},
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
        serializer = JobCreateInputSerializer(data=request.data)
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
            api_key=request.auth if isinstance(request.auth, ApiKey) else None,
        )
        state = JobOutputSerializer(job, context={"absolute": request.build_absolute_uri}).data
        return Response(
            JobCreateOutputSerializer(state).data,
            status=status.HTTP_202_ACCEPTED,
            headers={
                "Location": state["status_url"],
                **({} if created else {"Idempotent-Replayed": "true"}),
            },
        )


class JobListApi(APIView):
    class Pagination(LimitOffsetPagination):
        default_limit = 50
        max_limit = 200

    @extend_schema(
        parameters=[JobFilterSerializer],
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
        filters = JobFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        jobs = selectors.job_list(owner=request.user, status=filters.validated_data.get("status"))
        paginator = self.Pagination()
        page = paginator.paginate_queryset(jobs, request, view=self)
        context = {"absolute": request.build_absolute_uri}
        return paginator.get_paginated_response(
            JobOutputSerializer(page, many=True, context=context).data
        )


class JobDetailApi(APIView):
    @extend_schema(responses=JobOutputSerializer)
    def get(self, request: Request, job_id: str) -> Response:
        return _job_answer(request, selectors.job_get(owner=request.user, job_id=job_id))


class JobDeliveryListApi(APIView):
    @extend_schema(responses=WebhookDeliverySerializer(many=True))
    def get(self, request: Request, job_id: str) -> Response:
        """The job's webhook deliveries (newest first), each with its attempts."""
        job = selectors.job_get(owner=request.user, job_id=job_id)
        deliveries = job.deliveries.prefetch_related("attempts")
        return Response(WebhookDeliverySerializer(deliveries, many=True).data)


class JobCancelApi(APIView):
    @extend_schema(request=None, responses=JobOutputSerializer)
    def post(self, request: Request, job_id: str) -> Response:
        job = selectors.job_get(owner=request.user, job_id=job_id)
        return _job_answer(request, services.job_cancel(job=job))


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
        job = selectors.job_get_completed(job_id=job_id)
        handle = storages["reports"].open(job.pdf_file, "rb")
        return FileResponse(
            handle, content_type="application/pdf", as_attachment=True, filename=job.filename
        )
