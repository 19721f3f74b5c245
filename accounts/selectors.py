"""Reads of API keys, scoped to their workspace."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts.models import ApiKey


def api_key_list(*, workspace: Any) -> QuerySet[ApiKey]:
    return ApiKey.objects.filter(workspace=workspace).select_related("user")
