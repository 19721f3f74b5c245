"""A run's combined PDF (issue 42, Medium 9): never built inside a download request, built
once on a worker however many downloads ask at once, served from storage, rebuilt only
when the run changed."""

from __future__ import annotations

import io
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from pypdf import PdfReader
from rest_framework.test import APIClient

from jobs.models import JobStatus, PdfJob
from runs import combined
from runs.models import Run
from runs.progress import run_recount
from runs.tasks import build_run_combined
from tests.runs.test_runs import RUNS, _finish, _post
from tests.runs.test_runs import invoice as invoice  # the fixture

pytestmark = pytest.mark.django_db


def _combined_run(api, django_capture_on_commit_callbacks) -> tuple[Run, str]:
    records = [{"number": n, "customer": f"C{n}"} for n in (1, 2)]
    body = {"template": "invoice", "records": records, "output": "combined"}
    body["filename_pattern"] = "inv-{number}"
    run = Run.objects.get(run_id=_post(api, body).json()["run_id"])
    with django_capture_on_commit_callbacks(execute=True):
        _finish(run, ["completed", "completed"])
    return run, api.get(f"{RUNS}/{run.run_id}").json()["download_url"]


def test_combined_pdf_is_built_once_on_a_worker_and_served_from_storage(
    api, invoice, sent_tasks, django_capture_on_commit_callbacks, report_storage
):
    run, url = _combined_run(api, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        first = api.get(url)
        second = api.get(url)
    # Neither request merged anything: each is told it is being prepared, with progress.
    for answer in (first, second):
        assert answer.status_code == 202
        assert answer["Retry-After"] == "5"
        body = answer.json()
        assert body["status"] == "preparing"
        assert (body["done"], body["total"]) == (0, 2)
        assert "being prepared" in body["message"]
    run.refresh_from_db()
    assert run.combined_file == ""
    # One build sent for both requests.
    assert sent_tasks.ids("run_combine_enqueue", "run_id") == [run.run_id]

    assert build_run_combined(str(run.run_id)) == "built"
    run.refresh_from_db()
    assert run.combined_file
    assert run.combined_done == 2
    assert (report_storage / run.combined_file).is_file()
    with django_capture_on_commit_callbacks(execute=True):
        download = api.get(url)
    assert download.status_code == 200
    assert download["Content-Type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(b"".join(download.streaming_content)))
    assert len(reader.pages) == 3  # one page, then two
    assert [item.title for item in reader.outline] == ["inv-1", "inv-2"]
    # A title a reader shows instead of the storage key: the template and the run.
    assert reader.metadata.title == f"Invoice: run {run.run_id.hex[:8]} (2 records)"
    # Served, not built again: a second build message finds nothing to do.
    assert len(sent_tasks.calls["run_combine_enqueue"]) == 1
    assert build_run_combined(str(run.run_id)) == "nothing_to_build"


@pytest.mark.django_db(transaction=True)
def test_concurrent_downloads_send_one_build(api, invoice, sent_tasks):
    records = [{"number": n, "customer": "x"} for n in range(2)]
    run = Run.objects.get(
        run_id=_post(api, {"template": "invoice", "records": records, "output": "combined"}).json()[
            "run_id"
        ]
    )
    _finish(run, ["completed", "completed"])
    run_recount(run_id=run.run_id)
    url = api.get(f"{RUNS}/{run.run_id}").json()["download_url"]
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def download() -> None:
        client = APIClient()
        barrier.wait()
        try:
            statuses.append(client.get(url).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=download) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [202] * 8
    assert sent_tasks.ids("run_combine_enqueue", "run_id") == [run.run_id]


def test_a_dead_build_is_claimed_again(
    api, invoice, sent_tasks, django_capture_on_commit_callbacks, settings
):
    run, url = _combined_run(api, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        assert api.get(url).status_code == 202
        assert api.get(url).status_code == 202
    assert len(sent_tasks.calls["run_combine_enqueue"]) == 1
    # A build claimed longer ago than RUN_COMBINED_BUILD_SECONDS is taken as dead.
    stale = timezone.now() - timedelta(seconds=settings.RUN_COMBINED_BUILD_SECONDS + 1)
    Run.objects.filter(pk=run.pk).update(combined_started_at=stale)
    with django_capture_on_commit_callbacks(execute=True):
        assert api.get(url).status_code == 202
    assert len(sent_tasks.calls["run_combine_enqueue"]) == 2


def test_a_build_is_kept_only_for_the_run_it_was_claimed_for(
    api, invoice, sent_tasks, django_capture_on_commit_callbacks, report_storage, monkeypatch
):
    run, url = _combined_run(api, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        api.get(url)
    real = combined.run_rows

    def rows_then_retry(r):
        yield from real(r)
        # A retry and a new finish land while the merge runs.
        Run.objects.filter(pk=r.pk).update(finished_at=timezone.now() + timedelta(seconds=1))

    monkeypatch.setattr(combined, "run_rows", rows_then_retry)
    assert build_run_combined(str(run.run_id)) == "run_changed"
    run.refresh_from_db()
    assert run.combined_file == ""
    assert not list((report_storage / "runs").rglob("combined-*.pdf"))


def test_a_run_sent_again_forgets_its_combined_pdf_and_builds_it_again(
    api, invoice, sent_tasks, django_capture_on_commit_callbacks, report_storage
):
    run, url = _combined_run(api, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        api.get(url)
    build_run_combined(str(run.run_id))
    job = PdfJob.objects.filter(batch_id=run.run_id).first()
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.QUEUED)
    run = run_recount(run_id=run.run_id)
    assert (run.combined_file, run.combined_started_at, run.combined_done) == ("", None, 0)
    # Finished again: built again once, and the earlier file is dropped.
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.COMPLETED)
    run = run_recount(run_id=run.run_id)
    with django_capture_on_commit_callbacks(execute=True):
        assert api.get(url).status_code == 202
    assert len(sent_tasks.calls["run_combine_enqueue"]) == 2
    assert build_run_combined(str(run.run_id)) == "built"
    run.refresh_from_db()
    assert [p.name for p in (report_storage / "runs").rglob("combined-*.pdf")] == [
        run.combined_file.rsplit("/", 1)[1]
    ]


def test_the_page_says_the_combined_pdf_is_being_prepared(
    client, user, api, invoice, sent_tasks, django_capture_on_commit_callbacks
):
    run, _ = _combined_run(api, django_capture_on_commit_callbacks)
    client.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.get(f"/runs/{run.run_id}/download", follow=True)
    assert answer.status_code == 200
    assert "being prepared (0 of 2 PDFs merged)" in answer.content.decode()
    assert len(sent_tasks.calls["run_combine_enqueue"]) == 1
    build_run_combined(str(run.run_id))
    redirect = client.get(f"/runs/{run.run_id}/download")
    assert redirect.status_code == 302
    assert "/api/v1/runs/" in redirect["Location"]
