"""Input and output shapes of the jobs API; a job's answer is its public state (jobs.state)
plus its links."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from core.api_fields import (
    IsoDateTimeField,
    JsonInput,
    JsonObjectField,
    PdfOptionsField,
    QueryFilters,
    choice_filter,
    renderer_field,
    template_file_field,
    template_file_taken,
)
from jobs.links import pdf_path, status_path
from jobs.models import JobStatus, PdfJob
from jobs.state import JobStateSerializer
from rendering.engines import ENGINE_NAMES, UNKNOWN_ENGINE_MESSAGE
from workspaces.permissions import Action, can


class JobOutputSerializer(JobStateSerializer):
    """The state plus its links (the status URL, and the signed PDF link once completed);
    `context["absolute"]` turns a path into an absolute URL for the caller's host, and
    `context["actor"]` is who asks: the signed link is only handed to a role that may
    download (workspaces.permissions)."""

    status_url = serializers.SerializerMethodField()
    pdf_url = serializers.SerializerMethodField(
        help_text="Signed link; set once completed, until the PDF expires."
    )

    def get_status_url(self, job: PdfJob) -> str:
        return str(self.context["absolute"](status_path(job.job_id)))

    def get_pdf_url(self, job: PdfJob) -> str | None:
        if job.status != JobStatus.COMPLETED or job.is_expired:
            return None
        actor = self.context.get("actor")
        if actor is not None and not can(actor, Action.JOB_DOWNLOAD, job):
            return None
        return str(self.context["absolute"](pdf_path(job.job_id)))


class JobCreateInputSerializer(JsonInput):
    refuse_unknown = True  # a typo (`tempalte`) must not be a job without its template

    html_template = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    template_file = template_file_field()
    template = serializers.SlugField(required=False, allow_blank=True)
    data = JsonObjectField(required=False, default=dict)  # type: ignore[assignment]
    engine = serializers.ChoiceField(
        choices=ENGINE_NAMES,
        required=False,
        error_messages={"invalid_choice": UNKNOWN_ENGINE_MESSAGE},
    )
    renderer = renderer_field(
        required=False,
        help_text="What lays the HTML out: the stored template's renderer by default, "
        "else xhtml2pdf.",
    )
    helpers = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        default="",
        help_text="JavaScript whose top-level functions become Handlebars helpers "
        "(with an inline html_template only).",
    )
    options = PdfOptionsField(required=False, default=dict)
    steps = serializers.JSONField(
        required=False,
        help_text="Ordered post-render steps: objects with a type of merge (append/prepend: "
        "job ids of yours), stamp (text, image_base64 or pdf_base64), attach (filename, "
        "content_base64, mime_type), "
        "optimize (image_dpi) or encrypt (user_password, owner_password, permissions; last).",
    )
    callback_url = serializers.URLField(required=False, allow_blank=True, default="")
    cache = serializers.BooleanField(
        required=False,
        help_text="Reuse the PDF of an identical completed job of yours (same template "
        "version, data, options and renderer): the job completes at once with cached_from. "
        "By default the template's cache_results.",
    )

    class Meta:
        ref_name = "JobCreate"  # the schema's component name

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return template_file_taken(attrs, into="html_template", engine=attrs.get("engine"))


class JobCreateOutputSerializer(serializers.Serializer[Any]):
    job_id = serializers.UUIDField()
    status = serializers.CharField()
    status_url = serializers.URLField()

    class Meta:
        ref_name = "JobAccepted"


class JobFilterSerializer(QueryFilters):
    status = choice_filter("status", JobStatus.values, allow_blank=True)
    batch_id = serializers.UUIDField(required=False, help_text="Jobs of one batch submit.")


class JobBatchInputSerializer(JsonInput):
    """Documentation of the batch body: each item is checked on its own, so one bad item
    fails alone."""

    refuse_unknown = True

    items = serializers.ListField(
        child=JsonObjectField(),
        min_length=1,
        max_length=settings.PDF_MAX_BATCH,
        help_text="Each a generate-pdf-async body, checked on its own.",
    )

    class Meta:
        ref_name = "JobBatch"


class JobBatchItemSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField(help_text="Position of the item in the request.")
    job_id = serializers.UUIDField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    status_url = serializers.URLField(allow_null=True)
    error = serializers.CharField(allow_null=True, help_text="Why this item was refused.")
    code = serializers.CharField(allow_null=True)


class JobBatchOutputSerializer(serializers.Serializer[Any]):
    batch_id = serializers.UUIDField(
        help_text="Filter the jobs list with ?batch_id=; the batch's run id as well."
    )
    run_url = serializers.URLField(help_text="GET it to follow the batch as one run.")
    jobs = JobBatchItemSerializer(many=True)


class WebhookAttemptSerializer(serializers.Serializer[Any]):
    attempted_at = IsoDateTimeField()
    status_code = serializers.IntegerField(allow_null=True, help_text="null: no answer")
    error = serializers.CharField(help_text="Empty when the receiver took it.")
    duration_ms = serializers.IntegerField()


class WebhookDeliverySerializer(serializers.Serializer[Any]):
    """One event sent to the job's callback URL, with every attempt and its answer."""

    webhook_id = serializers.CharField(source="message_id", help_text="The webhook-id header.")
    event_type = serializers.CharField(help_text="job.completed, job.failed or job.cancelled")
    url = serializers.URLField()
    created_at = IsoDateTimeField()
    delivered_at = IsoDateTimeField(allow_null=True)
    attempts = WebhookAttemptSerializer(many=True)


class UsageRowSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text="jobs_per_day, jobs_per_month, pages_per_day, ...")
    metric = serializers.CharField()
    period = serializers.CharField()
    setting = serializers.CharField(help_text="The setting that sets the default limit.")
    used = serializers.IntegerField()
    limit = serializers.IntegerField(help_text="0: no limit.")
    resets_at = IsoDateTimeField()


class UsageOutputSerializer(serializers.Serializer[Any]):
    workspace = serializers.CharField(help_text="The workspace's slug.")
    quotas = UsageRowSerializer(many=True)
