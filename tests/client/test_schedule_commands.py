"""`pdfreports schedules` against a scripted service: the list shows whole ids however
narrow the terminal, and pause, resume, run-now and runs take a unique prefix."""

from __future__ import annotations

from click.testing import CliRunner

from pdfreports.cli import cli
from tests.client.scripted_server import scripted_server

FIRST = "3f2b8c1e-1111-4a7d-9c1e-0123456789ab"
SECOND = "3f2b9999-2222-4a7d-9c1e-0123456789ab"


def _schedule(schedule_id: str, name: str) -> dict:
    return {
        "schedule_id": schedule_id,
        "name": name,
        "template": "invoice",
        "cron": "0 6 1 * *",
        "timezone": "Europe/Berlin",
        "next_run_at": "2027-01-01T05:00:00Z",
        "paused": False,
    }


LISTED = {"count": 2, "results": [_schedule(FIRST, "Invoice"), _schedule(SECOND, "Other")]}


def _cli(server, *args: str):
    runner = CliRunner(env={"COLUMNS": "60"})
    return runner.invoke(cli, ["--url", server.url, "--api-key", "k", *args])


def test_the_list_prints_whole_ids_in_a_narrow_terminal():
    with scripted_server([(200, {}, LISTED)]) as server:
        listed = _cli(server, "schedules", "list")
    assert listed.exit_code == 0, listed.output
    assert FIRST in listed.output
    assert SECOND in listed.output


def test_pause_takes_a_unique_prefix_and_names_several_matches():
    paused = {**_schedule(FIRST, "Invoice"), "paused": True, "next_run_at": None}
    with scripted_server([(200, {}, LISTED), (200, {}, paused)]) as server:
        done = _cli(server, "schedules", "pause", "3f2b8c1e")
    assert done.exit_code == 0, done.output
    assert [(s.method, s.path.split("?")[0]) for s in server.seen] == [
        ("GET", "/api/v1/schedules"),
        ("PATCH", f"/api/v1/schedules/{FIRST}"),
    ]
    with scripted_server([(200, {}, LISTED)]) as server:
        both = _cli(server, "schedules", "run-now", "3f2b")
    assert both.exit_code == 3
    assert "2 schedule ids start with '3f2b'" in both.output
    with scripted_server([(200, {}, LISTED)]) as server:
        none = _cli(server, "schedules", "runs", "abcd1234")
    assert "no schedule id starts with 'abcd1234'" in none.output
