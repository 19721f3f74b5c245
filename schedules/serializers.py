"""Input and output shapes of the schedules API."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api_fields import IsoDateTimeField, JsonInput, JsonObjectField
from jobs.links import status_path
from schedules.models import ScheduleRun


@extend_schema_field(
    {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {"type": "string", "enum": ["email", "webhook", "s3"]},
                "to": {"type": "array", "items": {"type": "string", "format": "email"}},
                "url": {"type": "string", "format": "uri"},
                "bucket": {"type": "string"},
                "prefix": {"type": "string"},
            },
        },
    }
)
class DeliveriesField(serializers.JSONField):
    """[{type: email, to: [...]}, {type: webhook, url}, {type: s3, bucket, prefix}];
    schedules.validation checks them, naming the one that is wrong."""


class ScheduleInputSerializer(JsonInput):
    template = serializers.SlugField(required=False, help_text="A template's slug.")
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    data = JsonObjectField(required=False, help_text="The data every run renders with.")  # type: ignore[assignment]
    data_url = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=2000,
        help_text="An https URL each run fetches its data from (the webhooks' outbound rules).",
    )
    cron = serializers.CharField(
        required=False, max_length=100, help_text="Five fields: minute hour day month weekday."
    )
    timezone = serializers.CharField(
        required=False, max_length=64, help_text="An IANA zone (default UTC)."
    )
    deliveries = DeliveriesField(required=False)
    paused = serializers.BooleanField(required=False)

    def fields_given(self) -> dict[str, Any]:
        """Only the fields the body sent (a PATCH changes those alone)."""
        sent = self.initial_data if isinstance(self.initial_data, dict) else {}
        return {name: self.validated_data[name] for name in sent if name in self.validated_data}


class ScheduleOutputSerializer(serializers.Serializer[Any]):
    schedule_id = serializers.UUIDField()
    name = serializers.CharField()
    template = serializers.CharField(source="template.slug")
    data = JsonObjectField()  # type: ignore[assignment]
    data_url = serializers.CharField()
    cron = serializers.CharField()
    timezone = serializers.CharField()
    deliveries = DeliveriesField()
    paused = serializers.BooleanField()
    paused_reason = serializers.CharField(
        help_text="Why the service paused it (its creator lost access); empty otherwise."
    )
    next_run_at = IsoDateTimeField(allow_null=True)
    created_at = IsoDateTimeField()
    updated_at = IsoDateTimeField()


class DeliveryResultSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField()
    type = serializers.CharField()
    target = serializers.CharField()
    status = serializers.ChoiceField(choices=["sent", "failed"])
    error = serializers.CharField()
    at = serializers.CharField()


class ScheduleRunOutputSerializer(serializers.Serializer[Any]):
    run_id = serializers.UUIDField()
    schedule_id = serializers.UUIDField(source="schedule.schedule_id")
    trigger = serializers.CharField()
    scheduled_for = IsoDateTimeField()
    started_at = IsoDateTimeField()
    finished_at = IsoDateTimeField(allow_null=True)
    outcome = serializers.CharField()
    error = serializers.CharField()
    job_id = serializers.SerializerMethodField()
    job_status_url = serializers.SerializerMethodField()
    deliveries = DeliveryResultSerializer(many=True, source="delivery_results")

    @extend_schema_field(OpenApiTypes.UUID)
    def get_job_id(self, run: ScheduleRun) -> str | None:
        return str(run.job.job_id) if run.job is not None else None

    @extend_schema_field(OpenApiTypes.URI)
    def get_job_status_url(self, run: ScheduleRun) -> str | None:
        if run.job is None:
            return None
        return str(self.context["absolute"](status_path(run.job.job_id)))
