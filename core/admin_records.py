"""The admin of rows the application writes (jobs, runs, dead letters, alerts, the audit
log): shown and filtered, never added or edited by hand, so no row skips the services."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db import models
from django.http import HttpRequest

_M = TypeVar("_M", bound=models.Model)


class RecordAdmin(admin.ModelAdmin[_M]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
