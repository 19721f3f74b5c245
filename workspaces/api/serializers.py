"""The audit log API's filters and rows."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.api_fields import JsonInput, QueryFilters, choice_filter
from workspaces.audit import AuditAction


class AuditFilterSerializer(QueryFilters):
    action = choice_filter("action", [action.value for action in AuditAction])
    actor = serializers.CharField(
        required=False, max_length=200, help_text="A username, or an API key's prefix."
    )
    since = serializers.DateTimeField(required=False, help_text="Entries at or after (ISO 8601).")
    until = serializers.DateTimeField(required=False, help_text="Entries before (ISO 8601).")
    q = serializers.CharField(
        required=False, max_length=200, help_text="Text in the actor, action or target."
    )
    limit = serializers.IntegerField(required=False, min_value=1, max_value=10000, default=1000)
    format = serializers.ChoiceField(
        choices=["json", "csv"], required=False, help_text="Download the entries as a file."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        since, until = attrs.get("since"), attrs.get("until")
        if since and until and since >= until:
            raise serializers.ValidationError({"until": ["until must be later than since."]})
        return attrs


class AuditEntryOutputSerializer(serializers.Serializer[Any]):
    at = serializers.DateTimeField()
    actor = serializers.CharField(help_text="A username, `key <prefix>… (creator)`, or system.")
    action = serializers.CharField()
    target = serializers.CharField(help_text="What was acted on, as it read then.")
    target_type = serializers.CharField()
    target_id = serializers.CharField()
    changes = serializers.JSONField()


class WorkspaceCreateInputSerializer(JsonInput):
    refuse_unknown = True

    name = serializers.CharField(max_length=200, help_text="Its name; the slug is made from it.")


class WorkspaceOutputSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    slug = serializers.SlugField()
    role = serializers.CharField(help_text="Yours there: owner for one you made.")
