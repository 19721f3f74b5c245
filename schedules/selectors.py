"""Reading schedules and their runs, always within one workspace."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet

from core.errors import NotFound
from core.uuids import uuid_or_none
from schedules.models import Schedule, ScheduleRun


def schedule_list(*, workspace: Any) -> QuerySet[Schedule]:
    return Schedule.objects.filter(workspace=workspace).select_related("template")


def schedule_get(*, workspace: Any, schedule_id: str | uuid.UUID) -> Schedule:
    """The workspace's schedule; another workspace's is a 404 like a missing one."""
    parsed = uuid_or_none(schedule_id)
    found = (
        schedule_list(workspace=workspace).filter(schedule_id=parsed).first() if parsed else None
    )
    if found is None:
        raise NotFound(f"No schedule {schedule_id} was found.")
    return found


def schedule_runs(*, schedule: Schedule) -> QuerySet[ScheduleRun]:
    """Its runs, newest first, each with its job (status, link)."""
    return schedule.runs.select_related("job", "schedule").order_by("-started_at")
