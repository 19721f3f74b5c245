"""The job's public state: the one shape REST, SSE, WebSocket, callbacks and pages send."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api_fields import RENDERER_CHOICES, CheapFieldCopies, IsoDateTimeField
from jobs.models import LIBREOFFICE, JobStatus, PdfJob
from jobs.retry_rule import failure_advice, job_retry_helps


class ComplianceCheckSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    passed = serializers.BooleanField()
    detail = serializers.CharField()


class SignatureSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField()
    signer = serializers.CharField()


class ComplianceSerializer(serializers.Serializer[Any]):
    """What the finished PDF was read back for (options.pdf); a failed check fails the job."""

    profile = serializers.CharField(allow_null=True)
    checks = ComplianceCheckSerializer(many=True)
    signature = SignatureSerializer(allow_null=True)


class JobStateSerializer(CheapFieldCopies, serializers.Serializer[Any]):
    """The job's public state, without links (what a live event carries)."""

    job_id = serializers.UUIDField()
    template_name = serializers.SerializerMethodField(help_text="null for inline HTML")
    filename = serializers.CharField(
        help_text="The PDF's download name: options.filename, else the template's slug, else "
        "one from an inline page's <title> (what the pages list an inline job as)."
    )
    status = serializers.ChoiceField(choices=JobStatus.choices)
    renderer = serializers.ChoiceField(
        choices=[*RENDERER_CHOICES, (LIBREOFFICE, "LibreOffice (conversions, Word templates)")],
        source="shown_renderer",
        help_text="What made the PDF: the job's renderer, or libreoffice for a conversion or "
        "a Word template.",
    )
    progress = serializers.IntegerField(min_value=0, max_value=100)
    stage = serializers.CharField()
    error = serializers.SerializerMethodField()
    error_code = serializers.SerializerMethodField()
    attempts = serializers.IntegerField(help_text="Attempts of the current run.")
    total_attempts = serializers.SerializerMethodField(
        help_text="Attempts of every run, retries and re-drives included."
    )
    retryable = serializers.SerializerMethodField(
        help_text="Failed for a reason a retry can fix (worker lost, time out, our side)."
    )
    advice = serializers.SerializerMethodField(help_text="What to do about the failure.")
    page_count = serializers.IntegerField(allow_null=True)
    size_bytes = serializers.IntegerField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())
    seq = serializers.IntegerField(source="event_seq", help_text="Increases with every event.")
    created_at = IsoDateTimeField()
    started_at = IsoDateTimeField(allow_null=True)
    completed_at = IsoDateTimeField(allow_null=True)
    expired = serializers.BooleanField(
        source="is_expired", help_text="The PDF was deleted (PDF_RETENTION_DAYS): no pdf_url."
    )
    cached_from = serializers.UUIDField(
        allow_null=True, help_text="The job whose PDF this one reuses (result cache)."
    )
    batch_id = serializers.UUIDField(
        allow_null=True,
        help_text="The run, batch or schedule run the job belongs to (GET runs/{batch_id} "
        "for a run or batch); null for a job of its own.",
    )
    compliance = serializers.SerializerMethodField(
        help_text="null unless options.pdf asked for a profile, metadata or an e-invoice."
    )

    def get_template_name(self, job: PdfJob) -> str | None:
        # The stored template's name (what a list of jobs shows); null for inline HTML.
        return job.template.name if job.template_id and job.template else None

    @extend_schema_field(ComplianceSerializer(allow_null=True))
    def get_compliance(self, job: PdfJob) -> dict[str, Any] | None:
        return job.compliance or None

    def get_error(self, job: PdfJob) -> str | None:
        return job.error or None

    def get_error_code(self, job: PdfJob) -> str | None:
        return job.error_code or None

    def get_total_attempts(self, job: PdfJob) -> int:
        return job.earlier_attempts + job.attempts

    def get_retryable(self, job: PdfJob) -> bool:
        return job_retry_helps(job)

    def get_advice(self, job: PdfJob) -> str | None:
        if job.status != JobStatus.FAILED:
            return None
        return failure_advice(job.error_code).replace("{id}", str(job.job_id))
