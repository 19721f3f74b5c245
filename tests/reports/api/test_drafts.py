"""Drafts and publishing through the API: a PATCH saves a draft no job renders, publish
makes it live and records who and when, rollback publishes an earlier version again."""

from __future__ import annotations

import pytest

from jobs.models import PdfJob
from reports.models import ReportTemplate

pytestmark = pytest.mark.django_db
URL = "/api/v1/templates"
SUBMIT = "/api/v1/generate-pdf-async"


@pytest.fixture
def hello(api):
    body = {"slug": "hello", "name": "Hello", "html": "<h1>v1 {{who}}</h1>"}
    assert api.post(URL, body | {"sample_data": {"who": "Ada"}}, format="json").status_code == 201
    return f"{URL}/hello"


def _submitted_version(api) -> int:
    job_id = api.post(SUBMIT, {"template": "hello", "data": {"who": "B"}}, format="json").json()[
        "job_id"
    ]
    return PdfJob.objects.get(job_id=job_id).template_version.number


def test_a_patch_saves_a_draft_that_jobs_do_not_render(api, hello, user):
    created = api.get(hello).json()
    assert (created["version"], created["draft_version"], created["draft"]) == (1, None, None)
    assert created["published_by"] == user.get_username()
    saved = api.patch(hello, {"html": "<h1>v2 {{who}}</h1>"}, format="json").json()
    assert (saved["version"], saved["draft_version"]) == (1, 2)
    assert saved["html"] == "<h1>v1 {{who}}</h1>"  # the published source
    assert saved["draft"]["html"] == "<h1>v2 {{who}}</h1>"
    # A second edit builds on the draft: its html stays, the css is added, one more version.
    again = api.patch(hello, {"css": "h1 { color: red }"}, format="json").json()
    assert again["draft_version"] == 3
    assert (again["draft"]["html"], again["draft"]["css"]) == (
        "<h1>v2 {{who}}</h1>",
        "h1 { color: red }",
    )
    assert _submitted_version(api) == 1


def test_publish_makes_the_draft_live_and_records_who(api, hello, user):
    api.patch(hello, {"html": "<h1>v2 {{who}}</h1>"}, format="json")
    published = api.post(f"{hello}/publish")
    assert published.status_code == 200, published.json()
    body = published.json()
    assert (body["version"], body["draft_version"], body["html"]) == (
        2,
        None,
        "<h1>v2 {{who}}</h1>",
    )
    assert body["published_by"] == user.get_username()
    assert body["published_at"]
    assert _submitted_version(api) == 2
    # Nothing to publish: unchanged.
    assert api.post(f"{hello}/publish").json()["version"] == 2


def test_an_edit_back_to_the_published_source_drops_the_draft(api, hello):
    api.patch(hello, {"html": "<h1>v2 {{who}}</h1>"}, format="json")
    back = api.patch(hello, {"html": "<h1>v1 {{who}}</h1>"}, format="json").json()
    assert (back["version"], back["draft_version"]) == (1, None)


def test_a_broken_draft_is_refused_like_a_save(api, hello):
    refused = api.patch(hello, {"html": "<p>\n{{#if x}}</p>"}, format="json")
    assert refused.status_code == 400
    assert (refused.json()["code"], refused.json()["line"]) == ("template_syntax", 2)
    assert api.get(hello).json()["draft_version"] is None


def test_rollback_publishes_an_earlier_version_and_keeps_the_draft(api, hello):
    api.patch(hello, {"html": "<h1>v2 {{who}}</h1>"}, format="json")
    api.post(f"{hello}/publish")
    api.patch(hello, {"html": "<h1>v3 {{who}}</h1>"}, format="json")
    rolled = api.post(f"{hello}/rollback", {"version": 1}, format="json")
    assert rolled.status_code == 200, rolled.json()
    body = rolled.json()
    assert (body["version"], body["draft_version"], body["html"]) == (1, 3, "<h1>v1 {{who}}</h1>")
    assert _submitted_version(api) == 1
    missing = api.post(f"{hello}/rollback", {"version": 9}, format="json")
    assert missing.status_code == 404
    assert "no version 9" in missing.json()["error"]
    assert api.post(f"{hello}/rollback", {"version": "x"}, format="json").status_code == 400
    assert api.post(f"{hello}/rollback", {}, format="json").status_code == 400


def test_a_builtin_cannot_be_published(api):
    from reports.samples import template_sync_samples

    template_sync_samples()
    slug = ReportTemplate.objects.filter(workspace__isnull=True).values_list("slug", flat=True)[0]
    refused = api.post(f"{URL}/{slug}/publish")
    assert refused.status_code == 403
    assert refused.json()["code"] == "read_only"


def test_the_preview_renders_the_draft_or_unsaved_source_and_names_the_line(api, hello):
    api.patch(hello, {"html": "<h1>v2 {{who}}</h1><pdf:nextpage /><p>two</p>"}, format="json")
    draft = api.post(f"{hello}/preview", {"version": "draft", "pages": 5}, format="json")
    assert draft.status_code == 200, draft.content[:300]
    assert len(draft.json()["pages"]) == 2
    assert draft.json()["pages"][0].startswith("data:image/png;base64,")
    png = api.post(f"{hello}/preview", {"html": "<p>unsaved {{who}}</p>"}, format="json")
    assert (png.status_code, png["Content-Type"]) == (200, "image/png")
    broken = api.post(f"{hello}/preview", {"html": "<p>\n\n{{#each x}}</p>"}, format="json")
    assert broken.status_code == 400
    assert (broken.json()["code"], broken.json()["line"]) == ("template_syntax", 3)
    schema = {"type": "object", "properties": {"who": {"type": "integer"}}}
    mismatch = api.post(f"{hello}/preview", {"schema": schema}, format="json")
    assert mismatch.status_code == 400
    assert "who: expected integer" in mismatch.json()["error"]
