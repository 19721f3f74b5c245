"""The schedules app's error codes (schedules): each with its HTTP status and what a person
should do about it, as rendering.error_codes gives its own (docs/reference/errors.md)."""

from __future__ import annotations

from enum import StrEnum

from rendering.error_codes import CodeInfo


class ScheduleErrorCode(StrEnum):
    TOO_MANY_SCHEDULES = "too_many_schedules"
    INVALID_SCHEDULE = "invalid_schedule"


CODES: dict[ScheduleErrorCode, CodeInfo] = {
    ScheduleErrorCode.TOO_MANY_SCHEDULES: CodeInfo(
        400,
        False,
        "Delete a schedule the workspace no longer needs (or ask the operator to raise "
        "SCHEDULE_MAX_PER_WORKSPACE), then create it again.",
    ),
    ScheduleErrorCode.INVALID_SCHEDULE: CodeInfo(
        400,
        False,
        "Correct the schedule's field the message names (cron, timezone, data_url, "
        "deliveries), then save it again.",
    ),
}
