"""Result cache: an identical submit of the same tenant (template version, data, options,
renderer) with `cache: true`, or of a template whose default it is, completes at once from
the earlier job's stored PDF; anything different, or expired, renders anew."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from jobs import retention, services
from jobs.models import JobStatus, PdfJob
from jobs.worker.execution import job_execute
from reports.services import template_create, template_update
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SUBMIT = "/api/v1/generate-pdf-async"
BODY = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}, "options": {"page_size": "A5"}}


def _render(job_id: str) -> PdfJob:
    done = job_execute(job_id=job_id)
    assert isinstance(done, PdfJob)
    assert done.status == JobStatus.COMPLETED
    return done


def test_an_identical_cached_submit_completes_at_once_from_the_same_pdf(
    api, user, report_storage: Path
):
    first = _render(api.post(SUBMIT, BODY, format="json").json()["job_id"])
    answer = api.post(SUBMIT, {**BODY, "cache": True}, format="json")
    assert answer.status_code == 202
    assert answer.json()["status"] == "completed"
    state = api.get(answer["Location"]).json()
    assert state["cached_from"] == str(first.job_id)
    assert state["pdf_url"]
    assert state["expired"] is False
    hit = PdfJob.objects.get(job_id=state["job_id"])
    assert hit.attempts == 0
    assert hit.worker == ""
    assert (hit.pdf_file, hit.page_count, hit.size_bytes) == (
        first.pdf_file,
        first.page_count,
        first.size_bytes,
    )
    assert [p.name for p in report_storage.iterdir()] == [first.pdf_file]  # stored once
    download = api.get(state["pdf_url"])
    assert download.status_code == 200
    assert b"".join(download.streaming_content).startswith(b"%PDF")
    # A hit of a hit names the job that rendered it.
    again = api.post(SUBMIT, {**BODY, "cache": True}, format="json").json()
    assert api.get(again["status_url"]).json()["cached_from"] == str(first.job_id)


@pytest.mark.parametrize(
    "change",
    [
        {"data": {"n": 2}},
        {"options": {"page_size": "A4"}},
        {"renderer": "weasyprint"},
        {"html_template": "<p>{{n}}!</p>"},
        {"cache": False},
        {},  # not asked for: an inline template has no cache default
    ],
)
def test_a_different_or_uncached_submit_renders_anew(api, change):
    _render(api.post(SUBMIT, BODY, format="json").json()["job_id"])
    body = {**BODY, "cache": True, **change} if change else BODY
    answer = api.post(SUBMIT, body, format="json").json()
    assert answer["status"] == "queued"
    assert api.get(answer["status_url"]).json()["cached_from"] is None


def test_another_tenants_identical_job_is_not_reused(api):
    other = UserFactory()
    same = {k: BODY[k] for k in ("html_template", "data", "options")}
    _render(str(services.job_create(owner=other, **same)[0].job_id))
    answer = api.post(SUBMIT, {**BODY, "cache": True}, format="json").json()
    assert answer["status"] == "queued"
    assert services.job_create(owner=other, cache=True, **same)[0].cached_from is not None


def test_an_expired_job_is_not_reused(api, user):
    first = _render(api.post(SUBMIT, BODY, format="json").json()["job_id"])
    PdfJob.objects.filter(pk=first.pk).update(completed_at=timezone.now() - timedelta(days=8))
    retention.pdfs_expire()
    answer = api.post(SUBMIT, {**BODY, "cache": True}, format="json").json()
    assert answer["status"] == "queued"


def test_a_templates_default_caches_until_a_submit_says_no_or_it_changes(api, user):
    template = template_create(
        owner=user, name="Cached", slug="cached", html="<p>{{n}}</p>", engine="handlebars"
    )
    template_update(template=template, cache_results=True)
    body = {"template": "cached", "data": {"n": 1}}
    first = _render(api.post(SUBMIT, body, format="json").json()["job_id"])
    assert api.get("/api/v1/templates/cached").json()["cache_results"] is True

    hit = api.post(SUBMIT, body, format="json").json()
    assert hit["status"] == "completed"
    assert PdfJob.objects.get(job_id=hit["job_id"]).cached_from == first.job_id
    assert api.post(SUBMIT, {**body, "cache": False}, format="json").json()["status"] == "queued"
    # A new version of the template renders something else: no reuse.
    api.patch("/api/v1/templates/cached", {"html": "<p>v2 {{n}}</p>"}, format="json")
    api.post("/api/v1/templates/cached/publish")
    assert api.post(SUBMIT, body, format="json").json()["status"] == "queued"


def test_a_cache_hit_counts_against_the_in_flight_quota(api, user, settings):
    """A hit completes at once, but its callback and mail cost the callbacks queue what a
    render's do: a tenant at its in-flight limit gets no more hits than renders."""
    _render(api.post(SUBMIT, BODY, format="json").json()["job_id"])
    settings.PDF_MAX_JOBS_IN_FLIGHT = 1
    hit = api.post(SUBMIT, {**BODY, "cache": True}, format="json")
    assert (hit.status_code, hit.json()["status"]) == (202, "completed")  # under the limit
    api.post(SUBMIT, {**BODY, "data": {"n": 9}}, format="json")  # the one slot
    refused = api.post(SUBMIT, {**BODY, "cache": True}, format="json")
    assert (refused.status_code, refused.json()["limit"]) == (429, "PDF_MAX_JOBS_IN_FLIGHT")


def test_publishing_a_partial_changes_the_key_of_the_templates_that_include_it(api, user):
    terms = template_create(owner=user, name="Terms", slug="terms", html="<p>30 days</p>")
    template_create(owner=user, name="Inv", slug="inv", html="<h1>{{n}}</h1>{{> terms}}")
    body = {"template": "inv", "data": {"n": 1}, "cache": True}
    first = _render(api.post(SUBMIT, body, format="json").json()["job_id"])
    assert api.post(SUBMIT, body, format="json").json()["status"] == "completed"
    template_update(template=terms, by=user, html="<p>60 days</p>")
    renewed = PdfJob.objects.get(job_id=api.post(SUBMIT, body, format="json").json()["job_id"])
    assert renewed.status == JobStatus.QUEUED
    assert renewed.cache_key != first.cache_key
    assert renewed.partial_versions == {"terms": terms.published_version_id}
