"""POST /api/v1/convert: office files (multipart `file`, repeated to merge) to one PDF, as a
job answered 202 like a submit."""

from __future__ import annotations

import json
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_api_key
from accounts.throttles import SubmitThrottle
from jobs.api.schema import IDEMPOTENCY_KEY
from jobs.api.serializers import JobCreateOutputSerializer
from jobs.conversions import conversion_create, conversion_options
from jobs.links import status_path
from rendering.errors import InvalidInput
from rendering.office_files import FORMATS
from workspaces.current import workspace_for
from workspaces.permissions import Action


class ConvertInputSerializer(serializers.Serializer[Any]):
    file = serializers.ListField(
        child=serializers.FileField(),
        allow_empty=False,
        help_text=f"One or more files ({', '.join(FORMATS)}), merged in the order sent.",
    )
    options = serializers.CharField(
        required=False,
        help_text="The submit's options as a JSON object (filename, title, watermark, pdf, ...).",
    )
    page_ranges = serializers.CharField(required=False, help_text="Pages to keep, e.g. 1-3,5.")
    landscape = serializers.BooleanField(required=False, allow_null=True, default=None)
    profile = serializers.ChoiceField(
        choices=["pdf/a-2b", "pdf/a-3b", "pdf/ua-1"], required=False, allow_blank=True
    )
    callback_url = serializers.URLField(required=False, allow_blank=True)

    class Meta:
        ref_name = "ConvertRequest"


def _options(raw: str) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        options = json.loads(raw)
    except ValueError:
        options = None
    if not isinstance(options, dict):
        raise InvalidInput("options must be a JSON object.")
    return options


class JobConvertApi(APIView):
    parser_classes = [MultiPartParser]
    throttle_classes = [SubmitThrottle]

    @extend_schema(
        operation_id="job_convert",
        summary="Convert office files (docx, xlsx, pptx, odt, ...) to one PDF: queue a job",
        request={"multipart/form-data": ConvertInputSerializer},
        responses={202: JobCreateOutputSerializer},
        parameters=[IDEMPOTENCY_KEY],
    )
    def post(self, request: Request) -> Response:
        workspace = workspace_for(request, Action.JOB_SUBMIT)
        serializer = ConvertInputSerializer(
            data={**request.POST.dict(), "file": request.FILES.getlist("file")}
        )
        serializer.is_valid(raise_exception=True)
        fields = serializer.validated_data
        files = [(str(upload.name).rsplit("/", 1)[-1], upload.read()) for upload in fields["file"]]
        job, created = conversion_create(
            owner=request.user,
            workspace=workspace,
            files=files,
            options=conversion_options(
                _options(fields.get("options", "")),
                files=files,
                page_ranges=fields.get("page_ranges", ""),
                landscape=fields.get("landscape"),
                profile=fields.get("profile", ""),
            ),
            api_key=request_api_key(request),
            callback_url=fields.get("callback_url", ""),
            idempotency_key=request.headers.get("Idempotency-Key", "").strip(),
        )
        accepted = {
            "job_id": str(job.job_id),
            "status": str(job.status),
            "status_url": request.build_absolute_uri(status_path(job.job_id)),
        }
        headers = {"Location": accepted["status_url"]}
        if not created:
            headers["Idempotent-Replayed"] = "true"
        return Response(accepted, status=status.HTTP_202_ACCEPTED, headers=headers)
