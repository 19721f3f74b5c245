"""Cron expressions and time zones: croniter's parse, ticks in local wall-clock time across
daylight-saving changes, and the errors naming the field."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from schedules.cron import ScheduleInvalid, cron_check, next_tick, zone_parse


def test_a_daily_tick_keeps_its_local_hour_across_the_spring_change():
    # Europe/Berlin goes from UTC+1 to UTC+2 on 2026-03-29 at 02:00 local.
    before = next_tick("0 9 * * *", "Europe/Berlin", after=datetime(2026, 3, 28, 12, tzinfo=UTC))
    after = next_tick("0 9 * * *", "Europe/Berlin", after=before)
    assert before == datetime(2026, 3, 29, 7, tzinfo=UTC)  # 09:00 CEST
    assert after == datetime(2026, 3, 30, 7, tzinfo=UTC)
    first = next_tick("0 9 * * *", "Europe/Berlin", after=datetime(2026, 3, 27, 12, tzinfo=UTC))
    assert first == datetime(2026, 3, 28, 8, tzinfo=UTC)  # 09:00 CET, the day before


def test_a_tick_inside_the_skipped_hour_runs_once_and_the_repeated_hour_once():
    skipped = next_tick("30 2 * * *", "Europe/Berlin", after=datetime(2026, 3, 28, 12, tzinfo=UTC))
    # 02:30 does not exist on 29 March: the tick is not lost, and it is not run twice.
    assert skipped.date() in {date(2026, 3, 29), date(2026, 3, 30)}
    again = next_tick("30 2 * * *", "Europe/Berlin", after=skipped)
    assert again > skipped
    # 02:30 happens twice on 25 October (the autumn change); the schedule runs once that day.
    autumn = next_tick("30 2 * * *", "Europe/Berlin", after=datetime(2026, 10, 24, 12, tzinfo=UTC))
    following = next_tick("30 2 * * *", "Europe/Berlin", after=autumn)
    assert autumn.date() == date(2026, 10, 25)
    assert following.date() == date(2026, 10, 26)


def test_a_monthly_tick_in_new_york():
    tick = next_tick("0 6 1 * *", "America/New_York", after=datetime(2026, 6, 15, tzinfo=UTC))
    assert tick == datetime(2026, 7, 1, 10, tzinfo=UTC)  # 06:00 EDT


def test_the_next_tick_is_strictly_after():
    moment = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
    assert next_tick("0 9 * * *", "UTC", after=moment) == datetime(2026, 1, 2, 9, tzinfo=UTC)


@pytest.mark.parametrize("expression", ["every day", "61 * * * *", "* * * *", "0 0 * * * *", ""])
def test_an_unparseable_cron_names_the_field(expression):
    with pytest.raises(ScheduleInvalid) as caught:
        cron_check(expression)
    assert caught.value.details["field"] == "cron"
    assert caught.value.http_status == 400


@pytest.mark.parametrize("name", ["Mars/Olympus", "../../etc/passwd", "", "utc+2"])
def test_an_unknown_time_zone_names_the_field(name):
    with pytest.raises(ScheduleInvalid) as caught:
        zone_parse(name)
    assert caught.value.details["field"] == "timezone"


def test_known_zones_and_expressions_pass():
    assert cron_check("  0   9 * *   1-5 ") == "0 9 * * 1-5"
    assert str(zone_parse("Asia/Kolkata")) == "Asia/Kolkata"
