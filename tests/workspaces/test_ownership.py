"""What a workspace owns: the API acts in its key's workspace, templates and jobs land
there, an Idempotency-Key is the workspace's, and keys are listed and revoked by owners."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiKey
from accounts.services import api_key_create, api_key_revoke
from jobs.models import PdfJob
from reports.models import ReportTemplate
from tests.factories import UserFactory
from workspaces.current import SESSION_KEY
from workspaces.services import membership_set, workspace_create, workspace_personal

pytestmark = pytest.mark.django_db
BODY = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}}


def _client(user, workspace, role="editor") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=user, workspace=workspace, role=role)[1])
    return client


def test_a_keys_templates_and_jobs_belong_to_its_workspace_and_name_their_creator():
    fiona = UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    api = _client(fiona, team)
    created = api.post(
        "/api/v1/templates", {"name": "I", "slug": "inv", "html": "<p>x</p>"}, format="json"
    )
    assert created.status_code == 201
    assert created.json()["builtin"] is False
    template = ReportTemplate.objects.get(slug="inv")
    assert (template.workspace, template.owner) == (team, fiona)
    job_id = api.post(
        "/api/v1/generate-pdf-async", {"template": "inv", "data": {}}, format="json"
    ).json()["job_id"]
    job = PdfJob.objects.get(job_id=job_id)
    assert (job.workspace, job.owner) == (team, fiona)
    # Fiona's own workspace does not see the team's template or job.
    own = _client(fiona, workspace_personal(user=fiona))
    assert own.get("/api/v1/templates/inv").status_code == 404
    assert own.get(f"/api/v1/jobs/{job_id}").status_code == 404
    assert job_id not in str(own.get("/api/v1/jobs").json())


def test_an_idempotency_key_is_the_workspaces():
    fiona, gus = UserFactory(), UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=gus, role="requester")
    headers = {"HTTP_IDEMPOTENCY_KEY": "order-17"}
    first = _client(fiona, team).post("/api/v1/generate-pdf-async", BODY, format="json", **headers)
    again = _client(gus, team, "requester").post(
        "/api/v1/generate-pdf-async", BODY, format="json", **headers
    )
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["job_id"] == first.json()["job_id"]
    # The same person's key in another workspace makes a job of its own, not a replay.
    other = _client(fiona, workspace_personal(user=fiona)).post(
        "/api/v1/generate-pdf-async", BODY, format="json", **headers
    )
    assert other.status_code == 202
    assert "Idempotent-Replayed" not in other
    assert other.json()["job_id"] != first.json()["job_id"]


def test_the_keys_page_lists_the_workspaces_keys_and_only_owners_revoke():
    fiona, gus = UserFactory(), UserFactory()
    team = workspace_create(name="Finance", owner=fiona)
    membership_set(workspace=team, user=gus, role="editor")
    key, _ = api_key_create(user=fiona, workspace=team, name="billing-service")
    api_key_create(user=fiona, name="fiona's own")
    browser = Client()
    browser.force_login(fiona)
    session = browser.session
    session[SESSION_KEY] = team.pk
    session.save()
    page = browser.get("/keys/").content.decode()
    assert "billing-service" in page
    assert "fiona&#x27;s own" not in page
    assert api_key_revoke(user=gus, key_id=key.pk) is None  # an editor may not
    assert ApiKey.objects.get(pk=key.pk).revoked_at is None
    assert api_key_revoke(user=fiona, key_id=key.pk) is not None
