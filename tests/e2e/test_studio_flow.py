"""Drafts on the live stack: a job submitted after a draft save renders the published text,
after publish the new text, after a rollback the old one again (a real worker, pypdf)."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import pdf_text
from tests.e2e.conftest import wait_for_status

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]
TERMINAL = {"completed", "failed", "cancelled"}


def _rendered_text(http: httpx.Client) -> str:
    submitted = http.post(
        "/api/v1/generate-pdf-async", json={"template": "memo", "data": {"who": "Ada"}}
    )
    assert submitted.status_code == 202, submitted.json()
    job = wait_for_status(http, submitted.json()["status_url"], until=TERMINAL)
    assert job["status"] == "completed", job
    return pdf_text(httpx.get(job["pdf_url"], timeout=30).content)[1]


def test_jobs_render_the_published_version_not_the_draft(http):
    created = http.post(
        "/api/v1/templates",
        json={
            "slug": "memo",
            "name": "Memo",
            "html": "<p>Published text for {{who}}</p>",
            "sample_data": {"who": "Ada"},
        },
    )
    assert created.status_code == 201, created.json()
    draft = http.patch("/api/v1/templates/memo", json={"html": "<p>Draft text for {{who}}</p>"})
    assert draft.json()["draft_version"] == 2
    assert "Published text for Ada" in _rendered_text(http)
    # The diff renders both on the previews queue's worker and marks the changed line.
    diff = http.get("/api/v1/templates/memo/diff", params={"from": 1, "to": "draft"}).json()
    assert diff["pages"][0]["changed_pixels"] > 0, diff
    assert http.get(diff["pages"][0]["overlay_png_url"]).content.startswith(b"\x89PNG")
    assert http.post("/api/v1/templates/memo/publish").json()["version"] == 2
    text = _rendered_text(http)
    assert "Draft text for Ada" in text
    assert "Published" not in text
    assert http.post("/api/v1/templates/memo/rollback", json={"version": 1}).status_code == 200
    assert "Published text for Ada" in _rendered_text(http)
