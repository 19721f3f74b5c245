"""The runs API: start a run (JSON records or an uploaded file), follow it, retry its
failed records, and download its ZIP or combined PDF by a signed link."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.storage import storages
from django.core.handlers.asgi import ASGIRequest
from django.http import FileResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_api_key
from accounts.throttles import ReadOrSubmitThrottledApi, StatusReadThrottle, SubmitThrottle
from core.api_fields import QueryFilters, choice_filter, shown_name, unknown_field_message
from core.api_pagination import paginated, paginated_schema
from core.api_schema import action_schema
from core.errors import NotFound
from jobs.api import schema as job_schema
from jobs.api.serializers import JobBatchInputSerializer, JobBatchOutputSerializer
from jobs.api.signed_link import TOKEN, SignedLinkApi
from jobs.api.views import batch_item_submit
from jobs.links import pdf_path
from jobs.models import JobStatus
from jobs.retry_rule import job_retry_helps
from rendering.errors import ApplicationError
from reports import selectors as template_selectors
from runs import combined, output, selectors, services
from runs.error_codes import RunErrorCode
from runs.links import run_download_path, run_download_token_valid, run_status_path
from runs.models import Run, RunOutput, RunRecord, RunStatus
from runs.records import Record, records_from_list, records_from_upload
from workspaces.current import actor_of, api_get, workspace_current, workspace_for
from workspaces.permissions import Action, can


class _RecordsField(serializers.ListField):
    """Validates at most RUN_MAX_RECORDS + 1 items: one too many is enough for run_create
    to refuse the run, so the rest are never looked at."""

    def to_internal_value(self, data: Any) -> list[Any]:
        if isinstance(data, list):
            data = data[: settings.RUN_MAX_RECORDS + 1]
        return super().to_internal_value(data)


class RunCreateInputSerializer(serializers.Serializer[Any]):
    template = serializers.SlugField(help_text="The stored template every record renders.")
    records = _RecordsField(
        child=serializers.JSONField(),
        required=False,
        help_text="The records (JSON objects), each the data of one PDF; or upload `file`.",
    )
    file = serializers.FileField(
        required=False, help_text="multipart: a CSV with a header row, a JSON array or NDJSON."
    )
    output = serializers.ChoiceField(choices=RunOutput.values, default=RunOutput.ZIP)
    filename_pattern = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=300,
        help_text="Each PDF's name from its record's fields, e.g. `invoice-{number}` "
        "(`{index}` counts from 1); made safe and unique in the run.",
    )

    class Meta:
        ref_name = "RunCreate"


class RunAcceptedSerializer(serializers.Serializer[Any]):
    run_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=RunStatus.choices)
    status_url = serializers.URLField()
    total = serializers.IntegerField()
    failed = serializers.IntegerField(help_text="Records refused at once (see the status).")


class RunRecordSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField()
    job_id = serializers.UUIDField(allow_null=True, source="job.job_id", default=None)
    status = serializers.SerializerMethodField(help_text="The job's status; `invalid`: no job.")
    error = serializers.SerializerMethodField(help_text="Why it was refused, or its job failed.")
    retryable = serializers.SerializerMethodField(
        help_text="Its job failed for a reason a retry can fix (retry-failed sends it again); "
        "a record refused at submit, or failed for its data or template, is not."
    )
    pdf_url = serializers.SerializerMethodField()

    def get_status(self, record: RunRecord) -> str:
        return record.job.status if record.job else "invalid"

    def get_error(self, record: RunRecord) -> str | None:
        return record.error or (record.job.error if record.job else "") or None

    def get_retryable(self, record: RunRecord) -> bool:
        return record.job is not None and job_retry_helps(record.job)

    def get_pdf_url(self, record: RunRecord) -> str | None:
        job = record.job
        if job is None or job.status != JobStatus.COMPLETED or job.is_expired:
            return None
        if not self.context["may_download"]:
            return None
        return str(self.context["absolute"](pdf_path(job.job_id)))


class RunSummarySerializer(serializers.Serializer[Any]):
    """A run without its records: a row of the runs list."""

    run_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=RunStatus.choices)
    status_url = serializers.SerializerMethodField()
    template = serializers.SlugField(source="template.slug", allow_null=True, default=None)
    template_name = serializers.CharField(
        source="template.name",
        allow_null=True,
        default=None,
        help_text="The template's name, as people know it (the slug is for the API).",
    )
    output = serializers.ChoiceField(choices=RunOutput.values)
    total = serializers.IntegerField()
    completed = serializers.IntegerField()
    failed = serializers.IntegerField()
    progress = serializers.IntegerField(help_text="Percent of the records finished.")
    seq = serializers.IntegerField(source="event_seq")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    download_url = serializers.SerializerMethodField(
        help_text="Signed link to the ZIP or combined PDF, once the run finished with a PDF."
    )

    def get_status_url(self, run: Run) -> str:
        return str(self.context["absolute"](run_status_path(run.run_id)))

    def get_download_url(self, run: Run) -> str | None:
        if run.output == RunOutput.SEPARATE or not run.is_finished or not run.completed:
            return None
        if not self.context["may_download"]:
            return None
        return str(self.context["absolute"](run_download_path(run.run_id)))


class RunOutputSerializer(RunSummarySerializer):
    records = serializers.SerializerMethodField()
    records_next = serializers.SerializerMethodField(
        help_text="The next page of records, when the run has more than one answer lists."
    )

    @extend_schema_field(RunRecordSerializer(many=True))
    def get_records(self, run: Run) -> list[dict[str, Any]]:
        rows = self.context["records"]
        return list(RunRecordSerializer(rows, many=True, context=self.context).data)

    def get_records_next(self, run: Run) -> str | None:
        if not self.context["more_records"] or not self.context["records_limit"]:
            return None
        offset = self.context["records_offset"] + self.context["records_limit"]
        return f"{self.get_status_url(run)}?records_offset={offset}"


def _answer(request: Request, run: Run, *, status: int = 200) -> Response:
    raw = request.query_params.get("records_offset", "0")
    if not raw.isdigit():
        raise ApplicationError("records_offset must be a whole number of records.")
    most = settings.RUN_STATUS_MAX_RECORDS
    raw_limit = request.query_params.get("records_limit", str(most))
    if not raw_limit.isdigit():
        raise ApplicationError("records_limit must be a whole number of records.")
    # records_limit=0: the counts alone (what a notice needs), no record read.
    offset, limit = int(raw), min(int(raw_limit), most)
    # Only what a record's answer shows: a status poll of a 1,000-record run reads no data.
    records = run.records.select_related("job").only(
        "index",
        "error",
        "run_id",
        "job__job_id",
        "job__status",
        "job__error",
        "job__error_code",
        "job__expired_at",
    )
    rows = list(records.order_by("index")[offset : offset + limit + 1]) if limit else []
    context = {
        "absolute": request.build_absolute_uri,
        "may_download": can(actor_of(request), Action.JOB_DOWNLOAD, run),
        "records": rows[:limit],
        "more_records": len(rows) > limit,
        "records_offset": offset,
        "records_limit": limit,
    }
    return Response(RunOutputSerializer(run, context=context).data, status=status)


def _run(request: Request, run_id: str, action: Action) -> Run:
    return api_get(request, action, selectors.run_get, run_id=run_id)


def _records(request: Request, fields: dict[str, Any], template_slug: str) -> list[Record]:
    upload = fields.get("file")
    if upload is not None and fields.get("records") is not None:
        raise ApplicationError("Send the records as `records` or as an uploaded `file`, not both.")
    if upload is None:
        records = fields.get("records")
        if records is None:
            raise ApplicationError("Send the records: a `records` list, or a multipart `file`.")
        return records_from_list(records)
    if upload.size > settings.REQUEST_MAX_BODY_BYTES:
        raise ApplicationError("The records file is too large.", http_status=413)
    # The schema types the CSV's cells ("12.5" becomes a number where it wants one).
    try:
        template = template_selectors.template_latest_version_visible(
            workspace=workspace_current(request), slug=template_slug
        )
    except NotFound:
        template = None
    schema = template.schema if template is not None else {}
    return records_from_upload(name=upload.name or "", content=upload.read(), schema=schema)


class RunFilterSerializer(QueryFilters):
    status = choice_filter("status", RunStatus.values)
    template = serializers.SlugField(required=False, help_text="Runs of this template (slug).")
    output = choice_filter(
        "output",
        RunOutput.values,
    )


class RunListCreateApi(ReadOrSubmitThrottledApi):
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    @extend_schema(
        operation_id="run_list",
        summary="List my runs (and batches), newest first",
        parameters=[RunFilterSerializer],
        responses=paginated_schema("PaginatedRunList", RunSummarySerializer),
    )
    def get(self, request: Request) -> Response:
        """The workspace's runs without their records (`?status=`, `?template=`,
        `?output=`, `?limit=`, `?offset=`); GET runs/{run_id} for a run's records."""
        filters = RunFilterSerializer.of(request)
        workspace = workspace_for(request, Action.JOB_VIEW)
        actor = actor_of(request)
        runs = selectors.run_list(workspace=workspace, **filters)
        context = {
            "absolute": request.build_absolute_uri,
            "may_download": can(actor, Action.JOB_DOWNLOAD, workspace),
        }
        return paginated(request, self, runs, RunSummarySerializer, context=context)

    @extend_schema(
        operation_id="run_create",
        summary="Start a run: one stored template, one PDF per record",
        request={
            "application/json": RunCreateInputSerializer,
            "multipart/form-data": RunCreateInputSerializer,
        },
        responses={202: RunAcceptedSerializer},
    )
    def post(self, request: Request) -> Response:
        """Each record is checked against the template's schema: a bad one is that
        record's error (naming its row and field) and the others render; none valid is a
        422 `run_records_invalid` listing each. More than RUN_MAX_RECORDS is a 400."""
        serializer = RunCreateInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        fields = serializer.validated_data
        workspace = workspace_for(request, Action.JOB_SUBMIT)
        run = services.run_create(
            owner=request.user,
            workspace=workspace,
            template_slug=fields["template"],
            records=_records(request, fields, fields["template"]),
            output=fields["output"],
            filename_pattern=fields["filename_pattern"],
            api_key=request_api_key(request),
        )
        status_url = request.build_absolute_uri(run_status_path(run.run_id))
        accepted = {
            "run_id": run.run_id,
            "status": run.status,
            "status_url": status_url,
            "total": run.total,
            "failed": run.failed,
        }
        return Response(
            RunAcceptedSerializer(accepted).data, status=202, headers={"Location": status_url}
        )


class RunDetailApi(APIView):
    throttle_classes = [StatusReadThrottle]

    @extend_schema(
        operation_id="run_get",
        summary="Get a run's progress (in records), its records and its download link",
        parameters=[
            OpenApiParameter("records_offset", int, required=False),
            OpenApiParameter(
                "records_limit",
                int,
                required=False,
                description="At most RUN_STATUS_MAX_RECORDS (the default); 0 for the counts only.",
            ),
        ],
        responses=RunOutputSerializer,
    )
    def get(self, request: Request, run_id: str) -> Response:
        return _answer(request, _run(request, run_id, Action.JOB_VIEW))


class RunRetryFailedApi(APIView):
    throttle_classes = [SubmitThrottle]

    @action_schema(
        "run_retry_failed", "Render the run's failed records again", {202: RunOutputSerializer}
    )
    def post(self, request: Request, run_id: str) -> Response:
        """Only the records whose job failed for a reason a retry can fix; 409 if none."""
        run = services.run_retry_failed(run=_run(request, run_id, Action.JOB_RETRY))
        return _answer(request, run, status=202)


class CombinedPreparingSerializer(serializers.Serializer[Any]):
    status = serializers.CharField(default="preparing")
    message = serializers.CharField()
    done = serializers.IntegerField(help_text="PDFs merged so far.")
    total = serializers.IntegerField(help_text="PDFs the combined PDF will hold.")
    progress = serializers.IntegerField(help_text="Percent of the PDFs merged.")


class RunDownloadApi(SignedLinkApi):
    @extend_schema(
        operation_id="run_download",
        summary="Download a run's ZIP or combined PDF by its signed link",
        parameters=[TOKEN],
        responses={
            (200, "application/zip"): OpenApiTypes.BINARY,
            (200, "application/pdf"): OpenApiTypes.BINARY,
            202: CombinedPreparingSerializer,
        },
    )
    def get(self, request: Request, run_id: str) -> HttpResponseBase:
        """A combined PDF is built once on a worker: until it is stored, a 202 with its
        progress and a Retry-After; then the stored file."""
        self.token_check(request, run_download_token_valid, run_id, "run")
        run = selectors.run_get_finished(run_id=run_id)
        if run.output == RunOutput.COMBINED:
            state = combined.run_combined_prepare(run=run)
            if not state.key:
                body = CombinedPreparingSerializer(
                    {
                        "message": combined.preparing_message(state),
                        "done": state.done,
                        "total": state.total,
                        "progress": state.progress,
                    }
                ).data
                return Response(body, status=202, headers={"Retry-After": "5"})
            handle = storages["reports"].open(state.key, "rb")
            return FileResponse(
                handle,
                content_type="application/pdf",
                as_attachment=True,
                filename=output.run_combined_name(run),
            )
        # Streamed as written: an async iterator on an ASGI server, where a sync one is read
        # whole before the first byte; a sync one under WSGI (and the test client).
        asgi = isinstance(request._request, ASGIRequest)
        chunks = output.run_zip_stream_async(run) if asgi else output.run_zip_stream(run)
        response = StreamingHttpResponse(chunks, content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{output.run_zip_name(run)}"'
        return response


class JobBatchCreateApi(APIView):
    throttle_classes = [SubmitThrottle]

    @extend_schema(
        operation_id="job_submit_batch",
        summary="Submit up to PDF_MAX_BATCH reports at once",
        examples=job_schema.batch_examples(),
        request=JobBatchInputSerializer,
        responses={200: JobBatchOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        """Up to PDF_MAX_BATCH submits at once: one answer per item, each its own job or
        error; the jobs share a batch_id. Not idempotent: resend only the refused items."""
        if isinstance(request.data, dict) and (
            unknown := [k for k in request.data if k != "items"]
        ):
            raise serializers.ValidationError(
                {
                    shown_name(name): [unknown_field_message(str(name), ["items"])]
                    for name in unknown
                }
            )
        items = request.data.get("items") if isinstance(request.data, dict) else None
        if not isinstance(items, list) or not items:
            raise serializers.ValidationError({"items": ["Give a list of submit bodies."]})
        if bad := [i for i, item in enumerate(items) if not isinstance(item, dict)]:
            raise serializers.ValidationError({"items": [f"items[{bad[0]}] is not an object."]})
        if len(items) > settings.PDF_MAX_BATCH:
            raise ApplicationError(
                f"A batch takes at most {settings.PDF_MAX_BATCH} items (PDF_MAX_BATCH); "
                f"this one has {len(items)}.",
                code=RunErrorCode.TOO_MANY_ITEMS,  # a schema (maxItems) violation: 400, like others
            )
        workspace = workspace_for(request, Action.JOB_SUBMIT)
        # A batch is a run of separate jobs: GET runs/{batch_id} follows it as one.
        run = services.run_for_batch_create(
            owner=request.user, workspace=workspace, total=len(items)
        )
        batch_id = run.run_id
        jobs = [
            batch_item_submit(request, i, item, batch_id=batch_id) for i, item in enumerate(items)
        ]
        services.run_for_batch_record(run=run, answers=jobs)
        answer = {
            "batch_id": batch_id,
            "run_url": request.build_absolute_uri(run_status_path(batch_id)),
            "jobs": jobs,
        }
        return Response(JobBatchOutputSerializer(answer).data)
