"""A workspace's quota limits: its own row's values, else the WORKSPACE_* settings."""

from __future__ import annotations

from django.conf import settings

from workspaces.models import Workspace, WorkspaceQuota

METRICS = ("jobs", "pages", "bytes")
PERIODS = ("day", "month")
NAMES = tuple(f"{metric}_per_{period}" for metric in METRICS for period in PERIODS)


def setting_name(name: str) -> str:
    return f"WORKSPACE_{name.upper()}"


def workspace_limits(*, workspace: Workspace) -> dict[str, int]:
    """Each limit by name (`jobs_per_day`, ...); 0 means none."""
    row = WorkspaceQuota.objects.filter(workspace=workspace).first()
    limits = {}
    for name in NAMES:
        own = getattr(row, name) if row is not None else None
        limits[name] = int(getattr(settings, setting_name(name))) if own is None else own
    return limits
