"""The installed `pdfreports` command against the real stack: the 50-page sample with
--wait --out, failures, status, download, idempotent re-runs and the template commands."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pdfreports.cli import ENGINES
from rendering.engines import ENGINE_NAMES
from reports.samples import sample_files, template_sync_samples
from reports.services import template_create
from schedules.models import Schedule
from tests.conftest import pdf_text
from tests.factories import members_with_emails
from workspaces.services import workspace_personal

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

PDFREPORTS = str(Path(sys.executable).parent / "pdfreports")


@pytest.fixture
def run(live_stack, integrator, tmp_path):
    """Run the console script in tmp_path with the service's URL and key in its environment."""
    env = {**os.environ, "PDFREPORTS_URL": live_stack.base_url, "PDFREPORTS_API_KEY": integrator[1]}

    def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [PDFREPORTS, *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    return run


def test_submit_wait_out_downloads_the_50_page_sample(run, tmp_path):
    template_sync_samples()
    _, _, data = sample_files("operations-review")
    (tmp_path / "data.json").write_text(json.dumps(data))

    done = run(
        "submit",
        "operations-review",
        "--data",
        "data.json",
        "--wait",
        "--out",
        "report.pdf",
        timeout=240,
    )

    assert done.returncode == 0, done.stderr
    job_id = done.stdout.strip()
    lines = done.stderr.splitlines()
    assert lines[0] == f"Submitted job {job_id}"
    # not a terminal: one line per update, from waiting to done, progress never going back
    updates = [line.split(" ", 3) for line in lines if line.startswith(job_id)]
    assert updates[0][1] in ("queued", "processing")  # the worker may be quicker than us
    assert updates[-1][1:] == ["completed", "100%", "Completed, 50 pages"]
    percents = [int(u[2].rstrip("%")) for u in updates]
    assert percents == sorted(percents)
    assert len(set(percents)) >= 5  # the bar moved through the render, not just to the end
    assert any(u[3] == "Laying out pages" for u in updates)
    assert lines[-1].startswith("Saved report.pdf (50 pages, ")
    pages, text = pdf_text((tmp_path / "report.pdf").read_bytes())
    assert pages == 50
    assert data["title"] in text
    assert "Page 50 of 50" in text


def test_a_failing_job_exits_1_with_its_error(run, tmp_path):
    (tmp_path / "broken.hbs").write_text("<p>{{shout name}}</p>")
    failed = run("submit", "broken.hbs", "--wait")
    assert failed.returncode == 1
    assert (
        f"job {failed.stderr.split()[2]} failed: Template error on line 1: Missing helper"
        in failed.stderr
    )
    job_id = failed.stderr.splitlines()[0].removeprefix("Submitted job ")
    status = run("status", job_id, "--json")
    assert status.returncode == 1
    assert json.loads(status.stdout)["status"] == "failed"


def test_bad_input_is_refused_before_anything_is_sent(run, tmp_path):
    (tmp_path / "list.json").write_text("[1, 2]")
    refused = run("submit", "invoice", "--data", "list.json")
    assert refused.returncode == 2
    assert "list.json must hold a JSON object" in refused.stderr
    unknown = run("submit", "no-such-template")
    assert unknown.returncode == 3
    assert "no-such-template" in unknown.stderr
    assert "HTTP 4" in unknown.stderr


def test_the_same_idempotency_key_returns_the_same_job(run, tmp_path):
    (tmp_path / "hello.hbs").write_text("<h1>Hello {{name}}</h1>")
    (tmp_path / "data.json").write_text('{"name": "Ada"}')
    args = ("submit", "hello.hbs", "--data", "data.json", "--idempotency-key", "nightly-2026-12-02")
    first, second = run(*args), run(*args)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    (tmp_path / "data.json").write_text('{"name": "Grace"}')
    reused = run(*args)
    assert reused.returncode == 3
    assert "idempotency_key_reused" in reused.stderr


def test_status_then_download_of_a_job_submitted_without_waiting(run, tmp_path):
    (tmp_path / "hello.hbs").write_text("<h1>Hello {{name}}</h1>")
    (tmp_path / "data.json").write_text('{"name": "Ada"}')
    job_id = run(
        "submit", "hello.hbs", "--data", "data.json", "--filename", "greeting"
    ).stdout.strip()
    waited = run("status", job_id, "--wait")
    assert waited.returncode == 0, waited.stderr
    assert "completed" in waited.stdout
    assert job_id in waited.stdout
    (tmp_path / "out").mkdir()
    saved = run("download", job_id, "--out", "out")
    assert saved.returncode == 0, saved.stderr
    assert "Hello Ada" in pdf_text((tmp_path / "out" / "greeting.pdf").read_bytes())[1]


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_templates_push_list_preview_and_submit_by_slug(run, tmp_path):
    (tmp_path / "letter.hbs").write_text("<h1>Dear {{to}}</h1>")
    (tmp_path / "letter.json").write_text('{"to": "Ada"}')
    (tmp_path / "letter.schema.json").write_text(
        '{"type": "object", "required": ["to"], "properties": {"to": {"type": "string"}}}'
    )
    created = run("templates", "push", "letter.hbs", "--name", "Letter")
    assert created.returncode == 0, created.stderr
    assert "Created letter, version 1" in created.stderr
    (tmp_path / "letter.hbs").write_text("<h1>Dearest {{to}}</h1>")
    updated = run("templates", "push", "letter.hbs")
    assert "Saved draft 2 of letter; version 1 stays published" in updated.stderr
    published = run("templates", "push", "letter.hbs", "--publish")
    assert "Published letter, version 2 (was draft 2)" in published.stderr

    listed = json.loads(run("templates", "list", "--json").stdout)
    mine = next(t for t in listed if t["slug"] == "letter")
    assert (mine["name"], mine["version"], mine["builtin"]) == ("Letter", 2, False)
    assert mine["sample_data"] == {"to": "Ada"}
    assert mine["schema"]["required"] == ["to"]
    assert "letter" in run("templates", "list").stdout

    preview = run("templates", "preview", "letter", "--width", "400")
    assert preview.returncode == 0, preview.stderr
    assert _png_size(tmp_path / "letter.png")[0] == 400

    (tmp_path / "bad.json").write_text('{"to": 7}')
    refused = run("submit", "letter", "--data", "bad.json")
    assert refused.returncode == 3
    assert "expected string" in refused.stderr or "to" in refused.stderr
    done = run("submit", "letter", "--data", "letter.json", "--out", "letter.pdf", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "completed"
    assert "Dearest Ada" in pdf_text((tmp_path / "letter.pdf").read_bytes())[1]


def test_submit_without_data_sends_the_templates_sample_data_and_says_1_page(run, tmp_path):
    template_sync_samples()
    done = run("submit", "invoice", "--out", "invoice.pdf")
    assert done.returncode == 0, done.stderr
    assert "No --data: sending the sample data of invoice" in done.stderr
    pages, text = pdf_text((tmp_path / "invoice.pdf").read_bytes())
    assert pages == 1
    assert "Northwind Traders" in text  # the sample's customer, not an empty invoice
    assert done.stderr.splitlines()[-1].startswith("Saved invoice.pdf (1 page, ")
    assert "Completed, 1 page" in done.stderr
    assert "1 pages" not in done.stderr


def test_inline_file_without_data_sends_an_empty_object(run, tmp_path):
    (tmp_path / "plain.hbs").write_text("<p>plain{{missing}}</p>")
    done = run("submit", "plain.hbs", "--out", "plain.pdf")
    assert done.returncode == 0, done.stderr
    assert "sample data" not in done.stderr
    assert "plain" in pdf_text((tmp_path / "plain.pdf").read_bytes())[1]


def test_schedule_commands_create_list_pause_run_now_and_runs(run, integrator):
    owner = integrator[0]
    template_create(
        owner=owner,
        workspace=workspace_personal(user=owner),
        name="Cli",
        slug="cli-sched",
        html="<p>{{x}}</p>",
    )
    members_with_emails(workspace_personal(user=owner), "a@example.com")
    bad = run("schedules", "create", "cli-sched", "0 9 * *")
    assert bad.returncode == 3
    assert "cron:" in bad.stderr
    created = run(
        "schedules",
        "create",
        "cli-sched",
        "0 9 * * 1",
        "--timezone",
        "Europe/Rome",
        "--email",
        "a@example.com",
        "--name",
        "From the CLI",
    )
    assert created.returncode == 0, created.stderr
    schedule_id = created.stdout.strip()
    schedule = Schedule.objects.get(schedule_id=schedule_id)
    assert (schedule.timezone, schedule.deliveries[0]["to"]) == ("Europe/Rome", ["a@example.com"])
    listed = json.loads(run("schedules", "list", "--json").stdout)
    assert [s["schedule_id"] for s in listed] == [schedule_id]
    assert run("schedules", "pause", schedule_id).returncode == 0
    schedule.refresh_from_db()
    assert schedule.paused
    run_id = run("schedules", "run-now", schedule_id).stdout.strip()
    runs = json.loads(run("schedules", "runs", schedule_id, "--json").stdout)
    assert [r["run_id"] for r in runs] == [run_id]


def test_the_clients_engine_choices_are_the_services_engines():
    assert sorted(ENGINES) == sorted(ENGINE_NAMES)


def test_run_renders_a_csv_into_a_zip_with_progress_in_records(run, integrator, tmp_path):
    template_create(
        owner=integrator[0],
        name="CLI invoice",
        slug="cli-invoice",
        html="<h1>Invoice {{number}}</h1>",
        schema={"type": "object", "properties": {"number": {"type": "integer"}}},
    )
    (tmp_path / "records.csv").write_text("number\n1\n2\nthree\n4\n")

    done = run(
        "run",
        "cli-invoice",
        "records.csv",
        "--zip",
        "out.zip",
        "--filename-pattern",
        "inv-{number}",
    )

    assert done.returncode == 1, done.stderr  # one record could not render
    lines = done.stderr.splitlines()
    assert lines[0].startswith("Started run ")
    assert any(line.endswith("4/4 records, 1 failed") for line in lines), lines
    assert "record 3: row 4: number: expected integer" in done.stderr  # counted from 1
    names = zipfile.ZipFile(tmp_path / "out.zip").namelist()
    assert names == ["inv-1.pdf", "inv-2.pdf", "inv-4.pdf", "failures.csv"]
    assert done.stdout.strip() in lines[0]
