"""Runs without workers: POST runs (JSON and uploads, bad records), the counters that
follow the jobs' transitions, retry-failed, and the ZIP and combined downloads."""

from __future__ import annotations

import csv
import io
import json
import time
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.utils import timezone
from pypdf import PdfReader, PdfWriter
from rest_framework.test import APIClient

from accounts.services import api_key_create
from jobs import transitions
from jobs.error_codes import JobErrorCode
from jobs.models import JobStatus, PdfJob
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from reports.services import template_create
from runs import records as records_module
from runs.error_codes import RunErrorCode
from runs.models import Run, RunStatus
from runs.records import records_from_list, records_from_upload
from runs.services import run_create
from tests.factories import UserFactory
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db

RUNS = "/api/v1/runs"
SCHEMA = {
    "type": "object",
    "required": ["number", "customer"],
    "properties": {"number": {"type": "integer"}, "customer": {"type": "string"}},
}


@pytest.fixture
def invoice(user):
    return template_create(
        owner=user,
        name="Invoice",
        slug="invoice",
        html="<h1>Invoice {{number}}</h1><p>{{customer}}</p>",
        schema=SCHEMA,
    )


def _post(api, body):
    return api.post(RUNS, body, format="json")


def test_a_run_makes_one_job_per_valid_record_and_names_the_bad_one(api, user, invoice):
    answer = _post(
        api,
        {
            "template": "invoice",
            "records": [
                {"number": 1, "customer": "Ada"},
                {"number": "two", "customer": "Bob"},  # fails the schema alone
                {"number": 1, "customer": "Cy"},  # same number: a unique name
            ],
            "output": "zip",
            "filename_pattern": "invoice-{number}",
        },
    )
    assert answer.status_code == 202, answer.json()
    body = answer.json()
    assert body["status"] == "running"
    assert body["total"] == 3
    assert body["failed"] == 1
    run = Run.objects.get(run_id=body["run_id"])
    jobs = PdfJob.objects.filter(batch_id=run.run_id).order_by("pk")
    assert [j.options["filename"] for j in jobs] == ["invoice-1.pdf", "invoice-1-2.pdf"]
    assert all(j.status == JobStatus.QUEUED and j.template_version_id for j in jobs)
    assert all(j.enqueued_at is not None for j in jobs)

    state = api.get(body["status_url"]).json()
    assert [r["status"] for r in state["records"]] == ["queued", "invalid", "queued"]
    assert state["records"][1]["job_id"] is None
    assert state["records"][1]["error"] == "records[1]: number: expected integer"
    assert state["download_url"] is None  # not finished


def test_every_record_bad_is_a_422_listing_each_and_makes_nothing(api, invoice):
    answer = _post(api, {"template": "invoice", "records": [{"number": 1}, "text"]})
    assert answer.status_code == 422
    body = answer.json()
    assert body["code"] == RunErrorCode.RUN_RECORDS_INVALID
    assert [r["index"] for r in body["records"]] == [0, 1]
    assert "missing required property 'customer'" in body["records"][0]["error"]
    assert body["records"][1]["error"] == "records[1] must be a JSON object."
    assert not Run.objects.exists()
    assert not PdfJob.objects.exists()


def test_more_records_than_allowed_is_a_400(api, invoice, settings):
    settings.RUN_MAX_RECORDS = 2
    records = [{"number": n, "customer": "x"} for n in range(3)]
    answer = _post(api, {"template": "invoice", "records": records})
    assert answer.status_code == 400
    assert answer.json()["code"] == RunErrorCode.TOO_MANY_ITEMS
    assert "RUN_MAX_RECORDS" in answer.json()["error"]


def _upload_text(kind: str, count: int) -> str:
    rows = [{"number": n, "customer": "x"} for n in range(count)]
    if kind == "csv":
        return "number,customer\n" + "".join(f"{n},x\n" for n in range(count))
    if kind == "ndjson":
        return "".join(json.dumps(row) + "\n" for row in rows)
    return json.dumps(rows)


@pytest.mark.parametrize("kind", ["csv", "ndjson", "json"])
def test_an_upload_past_the_limit_is_refused_after_reading_one_record_too_many(
    api, invoice, settings, monkeypatch, kind
):
    settings.RUN_MAX_RECORDS = 5
    made = []
    real = records_module.Record

    def counting(*args, **kwargs):
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(records_module, "Record", counting)
    upload = ContentFile(_upload_text(kind, 50).encode(), name=f"records.{kind}")
    answer = api.post(RUNS, {"template": "invoice", "file": upload}, format="multipart")
    assert answer.status_code == 400
    assert answer.json()["code"] == RunErrorCode.TOO_MANY_ITEMS
    assert "at most 5 records (RUN_MAX_RECORDS)" in answer.json()["error"]
    assert len(made) == 6  # the limit and one more; the other 44 were never parsed
    assert not Run.objects.exists()


def test_a_huge_upload_of_empty_objects_is_refused_quickly(api, invoice, settings):
    settings.RUN_MAX_RECORDS = 100
    upload = ContentFile(b"{}\n" * 1_000_000, name="records.ndjson")  # 3 MB, a million lines
    started = time.monotonic()
    answer = api.post(RUNS, {"template": "invoice", "file": upload}, format="multipart")
    assert answer.status_code == 400
    assert answer.json()["code"] == RunErrorCode.TOO_MANY_ITEMS
    assert time.monotonic() - started < 2


def test_a_json_array_upload_is_read_element_by_element(settings):
    settings.RUN_MAX_RECORDS = 3
    records = records_from_upload(name="r.json", content=b'[{"a": 1}, 2, [3], 4, 5', schema={})
    assert [r.data for r in records] == [{"a": 1}, 2, [3], 4]  # the broken tail never read
    assert [r.where for r in records][-1] == "records[3]"
    assert records_from_upload(name="r.json", content=b" [ ] ", schema={}) == []
    with pytest.raises(ApplicationError, match="not valid JSON"):
        records_from_upload(name="r.json", content=b"[{}, }]", schema={})
    with pytest.raises(ApplicationError, match="not valid JSON"):
        records_from_upload(name="r.json", content=b"[{}] x", schema={})
    with pytest.raises(ApplicationError, match="must hold an array"):
        records_from_upload(name="r.json", content=b'{"a": 1}', schema={})


def test_a_json_records_list_past_the_limit_is_refused(api, invoice, settings):
    settings.RUN_MAX_RECORDS = 2
    answer = _post(api, {"template": "invoice", "records": [{"number": 1}] * 5000})
    assert answer.status_code == 400
    assert answer.json()["code"] == RunErrorCode.TOO_MANY_ITEMS


def test_unknown_template_and_output_are_400s(api, invoice):
    assert _post(api, {"template": "nope", "records": [{}]}).json()["code"] == "unknown_template"
    bad = _post(api, {"template": "invoice", "records": [{}], "output": "tar"})
    assert bad.status_code == 400


def test_a_csv_upload_types_cells_by_the_schema_and_names_a_bad_row(api, invoice):
    csv_text = "number,customer\n7,Ada\n8,Bob,extra\nnine,Cy\n"
    upload = ContentFile(csv_text.encode(), name="records.csv")
    answer = api.post(RUNS, {"template": "invoice", "file": upload}, format="multipart")
    assert answer.status_code == 202, answer.json()
    state = api.get(answer.json()["status_url"]).json()
    records = state["records"]
    assert [r["status"] for r in records] == ["queued", "invalid", "invalid"]
    assert records[1]["error"] == "row 3: has 3 fields; the header has 2"
    assert records[2]["error"] == "row 4: number: expected integer"
    job = PdfJob.objects.get(job_id=records[0]["job_id"])
    assert job.data == {"number": 7, "customer": "Ada"}


def test_ndjson_upload_with_a_broken_line(api, invoice):
    text = '{"number": 1, "customer": "A"}\n{broken\n'
    upload = ContentFile(text.encode(), name="records.ndjson")
    answer = api.post(RUNS, {"template": "invoice", "file": upload}, format="multipart")
    assert answer.status_code == 202
    records = api.get(answer.json()["status_url"]).json()["records"]
    assert records[1]["error"].startswith("line 2: not valid JSON")


def test_another_workspaces_run_is_a_404(api, invoice):
    run_id = _post(api, {"template": "invoice", "records": [{"number": 1, "customer": "A"}]})
    stranger = UserFactory()
    other = APIClient()
    other.credentials(HTTP_X_API_KEY=api_key_create(user=stranger, name="x")[1])
    assert other.get(f"{RUNS}/{run_id.json()['run_id']}").status_code == 404
    assert other.post(f"{RUNS}/{run_id.json()['run_id']}/retry-failed").status_code == 404


def _pdf(text_pages: int) -> bytes:
    writer = PdfWriter()
    for _ in range(text_pages):
        writer.add_blank_page(width=200, height=200)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _finish(run: Run, outcomes: list[str]) -> list[PdfJob]:
    """Take each of the run's jobs through the state machine to the given outcome."""
    jobs = list(PdfJob.objects.filter(batch_id=run.run_id).order_by("pk"))
    for pages, (job, outcome) in enumerate(zip(jobs, outcomes, strict=True), start=1):
        transitions.job_claim(job_id=job.job_id, worker="test:1")
        if outcome == "completed":
            key = storages["reports"].save(f"{job.job_id}.pdf", ContentFile(_pdf(pages)))
            transitions.job_complete(
                job_id=job.job_id, pdf_file=key, page_count=pages, size_bytes=1, warnings=[]
            )
        else:
            transitions.job_fail(job_id=job.job_id, error="worker lost", code=outcome)
    return jobs


def test_counters_follow_the_jobs_and_retry_failed_sends_only_the_fixable(
    api, user, invoice, django_capture_on_commit_callbacks, sent_tasks
):
    records = [{"number": n, "customer": f"C{n}"} for n in range(4)]
    run = run_create(
        owner=user,
        workspace=workspace_personal(user=user),
        template_slug="invoice",
        records=records_from_list(records),
    )
    with django_capture_on_commit_callbacks(execute=True):
        jobs = _finish(
            run, ["completed", "completed", JobErrorCode.WORKER_LOST, ErrorCode.TEMPLATE_ERROR]
        )
    run.refresh_from_db()
    assert (run.status, run.completed, run.failed, run.progress) == (RunStatus.PARTIAL, 2, 2, 100)
    assert run.finished_at is not None
    # Each record says whether retry-failed can fix it, so a client retries only those.
    listed = api.get(f"{RUNS}/{run.run_id}").json()["records"]
    assert [r["retryable"] for r in listed] == [False, False, True, False]

    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post(f"{RUNS}/{run.run_id}/retry-failed")
    assert answer.status_code == 202
    assert answer.json()["status"] == "running"
    assert answer.json()["failed"] == 1
    statuses = {j.job_id: j.status for j in PdfJob.objects.filter(batch_id=run.run_id)}
    assert statuses[jobs[2].job_id] == JobStatus.QUEUED  # worker lost: a retry can fix it
    assert statuses[jobs[3].job_id] == JobStatus.FAILED  # the template: it cannot
    with django_capture_on_commit_callbacks(execute=True):
        again = api.post(f"{RUNS}/{run.run_id}/retry-failed")
    assert again.status_code == 409


def test_zip_streams_the_pdfs_under_their_names_with_a_failures_list(
    api, user, invoice, django_capture_on_commit_callbacks, sent_tasks
):
    records = [{"number": n, "customer": "Same"} for n in (5, 6, 7)]
    answer = _post(
        api,
        {"template": "invoice", "records": records, "filename_pattern": "{customer}"},
    )
    run = Run.objects.get(run_id=answer.json()["run_id"])
    with django_capture_on_commit_callbacks(execute=True):
        _finish(run, ["completed", ErrorCode.RENDER_ERROR, "completed"])
    state = api.get(f"{RUNS}/{run.run_id}").json()
    assert state["status"] == "partial"
    download = api.get(state["download_url"])
    assert download.status_code == 200
    assert download["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    assert archive.namelist() == ["Same.pdf", "Same-3.pdf", "failures.csv"]
    # Each entry is dated when its PDF was made, in the deployment's zone, not 1 January 1980.
    made = PdfJob.objects.filter(batch_id=run.run_id, status=JobStatus.COMPLETED)
    first = timezone.localtime(made.order_by("pk")[0].completed_at)
    stamp = first.timetuple()[:6]
    # (ZIP keeps even seconds.)
    assert archive.getinfo("Same.pdf").date_time == (*stamp[:5], stamp[5] - stamp[5] % 2)
    assert archive.getinfo("failures.csv").date_time[0] == timezone.localtime().year
    assert len(PdfReader(io.BytesIO(archive.read("Same-3.pdf"))).pages) == 3  # the third job
    assert "render_error" not in archive.read("failures.csv").decode()  # the message, not code
    assert "worker lost" in archive.read("failures.csv").decode()
    # An error echoing a formula stays text in a spreadsheet, like the audit export's cells.
    PdfJob.objects.filter(batch_id=run.run_id, status=JobStatus.FAILED).update(
        error='=HYPERLINK("https://evil.test","x")'
    )
    again = api.get(state["download_url"])
    archive = zipfile.ZipFile(io.BytesIO(b"".join(again.streaming_content)))
    failures = list(csv.reader(io.StringIO(archive.read("failures.csv").decode())))
    assert failures[1][3] == '\'=HYPERLINK("https://evil.test","x")'
    # The token is the run's own: it opens no other run, and a bad one is a 404.
    assert api.get(state["download_url"].replace("token=", "token=x")).status_code == 404


def test_a_run_past_the_in_flight_quota_is_a_429_and_makes_nothing(api, invoice, settings):
    settings.PDF_MAX_JOBS_IN_FLIGHT = 2
    records = [{"number": n, "customer": "x"} for n in range(3)]
    answer = _post(api, {"template": "invoice", "records": records})
    assert answer.status_code == 429
    assert answer.json()["limit"] == "PDF_MAX_JOBS_IN_FLIGHT"
    assert "this run adds 3" in answer.json()["error"]
    assert not Run.objects.exists()


def test_a_large_runs_records_are_paged(api, invoice, settings):
    settings.RUN_STATUS_MAX_RECORDS = 10
    records = [{"number": n, "customer": "x"} for n in range(12)]
    url = _post(api, {"template": "invoice", "records": records}).json()["status_url"]
    first = api.get(url).json()
    assert [r["index"] for r in first["records"]] == list(range(10))
    rest = api.get(first["records_next"]).json()
    assert [r["index"] for r in rest["records"]] == [10, 11]
    assert rest["records_next"] is None
    assert api.get(f"{url}?records_offset=x").status_code == 400


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        ("invoice-{numbr}", "{numbr} is not a field of the records (they have: customer, number"),
        ("invoice", "names no field"),
        ("x-{customer.name}", "{customer.name} is not a field"),
    ],
)
def test_a_filename_pattern_naming_no_known_field_is_a_400_naming_it(api, invoice, pattern, named):
    answer = _post(
        api,
        {
            "template": "invoice",
            "records": [{"number": 1, "customer": "Ada"}, {"number": 2, "customer": "Bob"}],
            "filename_pattern": pattern,
        },
    )
    assert answer.status_code == 400, answer.json()
    body = answer.json()
    assert (body["code"], body["field"]) == ("invalid_data", "filename_pattern")
    assert named in body["error"]
    assert not Run.objects.exists()


def test_a_pattern_with_index_or_a_field_some_records_lack_is_accepted(api, invoice):
    ok = _post(
        api,
        {
            "template": "invoice",
            "records": [{"number": 1, "customer": "Ada"}],
            "filename_pattern": "letter-{index}",
        },
    )
    assert ok.status_code == 202, ok.json()


def test_each_record_records_the_versions_of_the_templates_its_template_includes(user):
    """A run's jobs render the partials as published when the run was made, like a
    submit's (reports.partials): later publishes do not change them."""
    from reports.services import template_create

    terms = template_create(owner=user, name="T", slug="terms", html="<p>terms</p>")
    template_create(owner=user, name="L", slug="letter", html="<h1>{{n}}</h1>{{> terms}}")
    run = run_create(
        owner=user,
        workspace=workspace_personal(user=user),
        template_slug="letter",
        records=records_from_list([{"n": 1}, {"n": 2}]),
    )
    recorded = {
        tuple(job.partial_versions.items()) for job in PdfJob.objects.filter(batch_id=run.run_id)
    }
    assert recorded == {(("terms", terms.published_version_id),)}
