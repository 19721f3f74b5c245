"""The schedules app's error codes, declared as rendering.error_codes says."""

from __future__ import annotations

from rendering.error_codes import CodeEnum


class ScheduleErrorCode(CodeEnum):
    TOO_MANY_SCHEDULES = (
        "too_many_schedules",
        400,
        False,
        "Delete a schedule the workspace no longer needs (or ask the operator to raise "
        "SCHEDULE_MAX_PER_WORKSPACE), then create it again.",
    )
    INVALID_SCHEDULE = (
        "invalid_schedule",
        400,
        False,
        "Correct the schedule's field the message names (cron, timezone, data_url, "
        "deliveries), then save it again.",
    )
