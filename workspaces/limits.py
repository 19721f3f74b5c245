"""A workspace's quota limits: its own row's values, else the WORKSPACE_* settings."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from core.generation_cache import GenerationCache
from workspaces.models import Workspace, WorkspaceQuota

METRICS = ("jobs", "pages", "bytes")
PERIODS = ("day", "month")
NAMES = tuple(f"{metric}_per_{period}" for metric in METRICS for period in PERIODS)


def setting_name(name: str) -> str:
    return f"WORKSPACE_{name.upper()}"


# Each workspace's own limits (None: the setting's), read once per process while no
# WorkspaceQuota row changes: a query a submit made for values that rarely change.
quota_rows: GenerationCache[dict[str, int | None]] = GenerationCache("workspace-quotas")


def _own_limits(workspace: Workspace) -> dict[str, int | None]:
    row = WorkspaceQuota.objects.filter(workspace=workspace).first()
    return {name: getattr(row, name) if row is not None else None for name in NAMES}


def workspace_limits(*, workspace: Workspace) -> dict[str, int]:
    """Each limit by name (`jobs_per_day`, ...); 0 means none."""
    own = quota_rows.get(workspace.pk, lambda: _own_limits(workspace)) or {}
    limits = {}
    for name in NAMES:
        value = own.get(name)
        limits[name] = int(getattr(settings, setting_name(name))) if value is None else value
    return limits


def workspace_limits_invalidate(**signal: Any) -> None:
    quota_rows.invalidate(**signal)
