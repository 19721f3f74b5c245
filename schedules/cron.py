"""Cron expressions and time zones: parsed by croniter, ticks computed in the schedule's zone.

A tick is found in local wall-clock time and stored in UTC, so `0 9 * * *` in
Europe/Berlin fires at 09:00 Berlin time on both sides of a daylight-saving change.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from croniter import CroniterBadCronError, CroniterBadDateError, croniter

from rendering.errors import ApplicationError
from schedules.error_codes import ScheduleErrorCode


class ScheduleInvalid(ApplicationError):
    """400 naming the field of the schedule that is wrong: `field` (the first) and
    `fields` (each wrong field's messages, the shape of every other 400's `fields`), at the
    top level of the answer like every error's details (core.exception_handler)."""

    code = ScheduleErrorCode.INVALID_SCHEDULE

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.details: dict[str, Any] = {"field": field, "fields": {field: [message]}}

    @classmethod
    def every(cls, problems: list[tuple[str, str]]) -> ScheduleInvalid:
        """One error for several wrong fields: all of them at once, in the message too."""
        first = cls(*problems[0])
        first.message = "; ".join(f"{field}: {message}" for field, message in problems)
        fields: dict[str, list[str]] = {}
        for field, message in problems:
            fields.setdefault(field, []).append(message)
        first.details["fields"] = fields
        return first


@cache
def _zone_keys() -> frozenset[str]:
    # Read once per process: available_timezones() walks the whole zone database on disk
    # (about 20 ms), and every schedule saved and every tick computed names a zone.
    return frozenset(available_timezones())


def zone_parse(name: str) -> ZoneInfo:
    """The IANA zone; ScheduleInvalid for a name the system's zone database does not know."""
    # ZoneInfo also opens relative paths ("../../etc/..."); only real zone keys are taken.
    if not isinstance(name, str) or name not in _zone_keys():
        raise ScheduleInvalid("timezone", f"unknown time zone {name!r}; use an IANA name.")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleInvalid("timezone", f"unknown time zone {name!r}.") from None


def cron_check(expression: str) -> str:
    """The expression, stripped; ScheduleInvalid if croniter cannot parse it. Five fields
    (minute hour day month weekday): second-level schedules are not offered."""
    text = " ".join(str(expression or "").split())
    if len(text.split(" ")) != 5:
        raise ScheduleInvalid(
            "cron", f"{expression!r} is not a cron expression of five fields (m h dom mon dow)."
        )
    if not croniter.is_valid(text):
        raise ScheduleInvalid("cron", f"{expression!r} is not a valid cron expression.")
    return text


def next_tick(expression: str, zone: str, *, after: datetime) -> datetime:
    """The first tick strictly after `after` in the zone's wall-clock time, as an aware UTC
    datetime. In the hour an autumn change repeats, a tick that already ran in its first
    pass is not run again in the second (croniter alone would run `30 2 * * *` twice)."""
    local = after.astimezone(zone_parse(zone))
    try:
        ticks = croniter(expression, local)
        for _ in range(8):
            found: datetime = ticks.get_next(datetime)
            if found.replace(tzinfo=None) > local.replace(tzinfo=None):
                break
    except (CroniterBadCronError, CroniterBadDateError) as exc:
        raise ScheduleInvalid("cron", str(exc)) from None
    return found.astimezone(UTC)
