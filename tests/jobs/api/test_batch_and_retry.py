"""POST generate-pdf-batch (one answer per item, a shared batch id) and POST jobs/{id}/retry
(the caller re-drives its own failed job)."""

from __future__ import annotations

import pytest

from jobs import transitions
from jobs.models import JobStatus, PdfJob
from jobs.retry_rule import failure_advice
from tests.factories import PdfJobFactory, UserFactory

pytestmark = pytest.mark.django_db

BATCH = "/api/v1/generate-pdf-batch"


def test_a_batch_answers_each_item_with_its_job_or_its_error(api, user):
    answer = api.post(
        BATCH,
        {
            "items": [
                {"html_template": "<p>{{n}}</p>", "data": {"n": 1}},
                {"html_template": "<p>{{#if}}</p>"},  # syntax error: refused alone
                {"template": "no-such-template"},
                {"html_template": "<p>three</p>", "options": {"page_size": "A5"}},
                {"html_template": 7},
            ]
        },
        format="json",
    )
    assert answer.status_code == 200
    body = answer.json()
    jobs = body["jobs"]
    assert [j["index"] for j in jobs] == [0, 1, 2, 3, 4]
    assert [j["status"] for j in jobs] == ["queued", None, None, "queued", None]
    assert [j["code"] for j in jobs] == [
        None,
        "template_syntax",
        "unknown_template",
        None,
        "invalid_data",
    ]
    assert "html_template: Must be a string." in jobs[4]["error"]
    made = PdfJob.objects.filter(batch_id=body["batch_id"])
    assert {str(j.job_id) for j in made} == {jobs[0]["job_id"], jobs[3]["job_id"]}
    assert all(j.owner == user for j in made)

    listed = api.get(f"/api/v1/jobs?batch_id={body['batch_id']}").json()
    assert {j["job_id"] for j in listed["results"]} == {jobs[0]["job_id"], jobs[3]["job_id"]}
    PdfJobFactory(owner=user)  # not in the batch
    assert api.get(f"/api/v1/jobs?batch_id={body['batch_id']}").json()["count"] == 2
    assert api.get("/api/v1/jobs?batch_id=nope").status_code == 400


def test_a_batch_over_pdf_max_batch_is_refused_whole(api, settings):
    settings.PDF_MAX_BATCH = 2
    items = [{"html_template": "<p/>"}] * 3
    answer = api.post(BATCH, {"items": items}, format="json")
    assert answer.status_code == 400
    assert answer.json()["code"] == "too_many_items"
    assert "PDF_MAX_BATCH" in answer.json()["error"]
    assert not PdfJob.objects.exists()


@pytest.mark.parametrize("body", [{}, {"items": []}, {"items": "x"}, {"items": [1]}, [1]])
def test_a_batch_without_a_list_of_objects_is_a_400(api, body):
    answer = api.post(BATCH, body, format="json")
    assert answer.status_code == 400
    assert "items" in answer.json()["error"] or "object" in answer.json()["error"]
    assert not PdfJob.objects.exists()


def test_retry_requeues_my_failed_job(api, user):
    job = PdfJobFactory(owner=user, status=JobStatus.FAILED, error="boom", error_code="x")
    answer = api.post(f"/api/v1/jobs/{job.job_id}/retry")
    assert answer.status_code == 202
    assert answer.json()["status"] == "queued"
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED


@pytest.mark.parametrize("status", [JobStatus.QUEUED, JobStatus.COMPLETED, JobStatus.CANCELLED])
def test_retry_of_a_job_that_did_not_fail_is_a_409(api, user, status):
    job = PdfJobFactory(owner=user, status=status)
    answer = api.post(f"/api/v1/jobs/{job.job_id}/retry")
    assert answer.status_code == 409
    assert f"is {status}; only a failed job can be retried" in answer.json()["error"]


def test_retry_of_another_callers_job_is_a_404(api):
    job = PdfJobFactory(owner=UserFactory(), status=JobStatus.FAILED)
    assert api.post(f"/api/v1/jobs/{job.job_id}/retry").status_code == 404
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


def test_batch_items_past_the_in_flight_quota_are_refused_one_by_one(api, user, settings):
    settings.PDF_MAX_JOBS_IN_FLIGHT = 2
    items = [{"html_template": f"<p>{n}</p>"} for n in range(3)]
    jobs = api.post(BATCH, {"items": items}, format="json").json()["jobs"]
    assert [j["code"] for j in jobs] == [None, None, "quota_exceeded"]
    assert "PDF_MAX_JOBS_IN_FLIGHT" in jobs[2]["error"]
    assert PdfJob.objects.filter(owner=user).count() == 2


def test_every_batch_item_counts_against_the_submit_rate(api, settings):
    settings.API_RATE_SUBMIT = "3/min"
    items = [{"html_template": f"<p>{n}</p>"} for n in range(4)]
    jobs = api.post(BATCH, {"items": items}, format="json").json()["jobs"]
    assert [j["code"] for j in jobs] == [None, None, None, "throttled"]
    assert "API_RATE_SUBMIT" in jobs[3]["error"]
    refused = api.post(BATCH, {"items": items[:1]}, format="json")
    assert refused.status_code == 429  # the budget is spent: the whole request waits
    assert refused.json()["limit"] == "API_RATE_SUBMIT"
    assert PdfJob.objects.count() == 3


def test_retry_past_the_in_flight_quota_is_a_429_and_the_job_stays_failed(api, user, settings):
    settings.PDF_MAX_JOBS_IN_FLIGHT = 1
    PdfJobFactory(owner=user, status=JobStatus.QUEUED)
    job = PdfJobFactory(owner=user, status=JobStatus.FAILED, error="boom")
    answer = api.post(f"/api/v1/jobs/{job.job_id}/retry")
    assert answer.status_code == 429
    assert answer.json()["limit"] == "PDF_MAX_JOBS_IN_FLIGHT"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


@pytest.mark.parametrize("code", ["template_syntax", "invalid_data", "limit_exceeded"])
def test_retry_of_a_failure_no_retry_fixes_is_a_409_saying_what_to_change(api, user, code):
    job = PdfJobFactory(owner=user, status=JobStatus.FAILED, error="bad", error_code=code)
    state = api.get(f"/api/v1/jobs/{job.job_id}").json()
    assert state["retryable"] is False
    assert state["advice"] == failure_advice(code)
    answer = api.post(f"/api/v1/jobs/{job.job_id}/retry")
    assert answer.status_code == 409
    assert f"would fail the same way ({code})" in answer.json()["error"]
    assert failure_advice(code) in answer.json()["error"]
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


def test_a_retry_counts_the_earlier_attempts(api, user):
    job = PdfJobFactory(
        owner=user, status=JobStatus.FAILED, error="lost", error_code="worker_lost", attempts=3
    )
    assert api.get(f"/api/v1/jobs/{job.job_id}").json()["retryable"] is True
    assert api.post(f"/api/v1/jobs/{job.job_id}/retry").status_code == 202
    transitions.job_claim(job_id=job.job_id, worker="w:1")
    state = api.get(f"/api/v1/jobs/{job.job_id}").json()
    assert (state["attempts"], state["total_attempts"]) == (1, 4)
    assert state["retryable"] is False  # processing: nothing to retry
    assert state["advice"] is None


def test_a_batch_is_a_run_followed_as_one(api, django_capture_on_commit_callbacks, sent_tasks):
    items = [{"html_template": "<p>one</p>"}, {"html_template": "<p>{{#if}}</p>"}]
    with django_capture_on_commit_callbacks(execute=True):
        body = api.post(BATCH, {"items": items}, format="json").json()
    run = api.get(body["run_url"]).json()
    assert run["run_id"] == body["batch_id"]
    assert run["output"] == "separate"
    assert (run["total"], run["failed"], run["status"]) == (2, 1, "running")
    assert [r["job_id"] for r in run["records"]] == [body["jobs"][0]["job_id"], None]
    assert run["records"][1]["error"] == body["jobs"][1]["error"]
    assert [str(i) for i in sent_tasks.ids("job_enqueue")] == [body["jobs"][0]["job_id"]]


def test_a_batch_item_with_an_unknown_field_is_refused_alone_naming_it(api):
    answer = api.post(
        BATCH,
        {"items": [{"html_template": "<p>ok</p>"}, {"html_tempalte": "<p>typo</p>"}]},
        format="json",
    )
    assert answer.status_code == 200
    jobs = answer.json()["jobs"]
    assert [j["status"] for j in jobs] == ["queued", None]
    assert jobs[1]["code"] == "invalid_data"
    assert 'html_tempalte: Unknown field. Did you mean "html_template"?' in jobs[1]["error"]


def test_an_unknown_field_beside_items_refuses_the_batch(api):
    answer = api.post(
        BATCH, {"items": [{"html_template": "<p>x</p>"}], "iterms": []}, format="json"
    )
    assert answer.status_code == 400
    assert 'iterms: Unknown field. Did you mean "items"?' in answer.json()["error"]
    assert not PdfJob.objects.exists()


def test_an_unpaired_surrogate_in_a_field_name_is_named_back_escaped(api):
    """JSON may carry an unpaired UTF-16 surrogate that UTF-8 (the database, the answer)
    cannot, and a NUL that PostgreSQL's text cannot: the unknown field is named by its
    escape, never a 500 (the fuzzer's finds)."""
    batch = api.post(
        "/api/v1/generate-pdf-batch",
        data='{"items": [{"\\uda6c": 1}, {"a\\u0000b": 1}]}',
        content_type="application/json",
    )
    assert batch.status_code == 200
    assert batch.json()["jobs"][0]["error"].startswith("\\uda6c: Unknown field.")
    assert batch.json()["jobs"][1]["error"].startswith("a\\u0000b: Unknown field.")
    single = api.post(
        "/api/v1/generate-pdf-async", data='{"\\uda6c": 1}', content_type="application/json"
    )
    assert single.status_code == 400
    assert single.json()["error"].startswith("\\uda6c: Unknown field.")
