"""The permission matrix: every role x every action, through the real endpoints (API with
a key of that role, pages with a member of that role signed in), and another workspace's
ids answered 404. The expected roles are written here by hand, from issue 20's role
descriptions, so a wrong row of the role table in workspaces.permissions fails."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import SigningCertificate
from accounts.services import api_key_create
from accounts.signing_certificates import signing_certificate_create
from core.errors import NotFound
from jobs.error_codes import JobErrorCode
from jobs.live.access import follow_authorize, follower_resolve
from jobs.models import JobStatus, PdfJob
from jobs.services import job_create
from reports.services import template_create
from runs.progress import run_recount
from runs.records import records_from_list
from runs.services import run_create
from schedules.services import schedule_create
from tests.accounts.pkcs12_factory import make_pkcs12
from tests.factories import UserFactory
from workspaces.current import SESSION_KEY
from workspaces.models import Role, Workspace
from workspaces.services import membership_set, workspace_create

ALL = {"owner", "editor", "requester", "viewer", "operator"}
# Who may, per action: issue 20 "Roles" (owner everything; editor templates; requester
# submit and download; viewer read only; operator re-drive, no template edits).
MAY = {
    "template.view": ALL,
    "template.edit": {"owner", "editor"},
    "template.publish": {"owner", "editor"},
    "job.submit": {"owner", "editor", "requester"},
    "job.view": ALL,
    "job.download": ALL,
    "job.cancel": {"owner", "editor", "requester", "operator"},
    "job.retry": {"owner", "editor", "requester", "operator"},
    "key.manage": {"owner"},
    "certificate.manage": {"owner", "editor"},
    "certificate.use": {"owner", "editor"},
    "usage.view": {"owner"},
    "schedule.view": ALL,
    "schedule.manage": {"owner", "editor", "requester"},
    "schedule.s3": {"owner"},
    "audit.view": {"owner"},
    "member.manage": {"owner"},
    "sso.manage": {"owner"},
}
SUBMIT = {"template": "tpl", "data": {"title": "t"}}
FORM = {"data": '{"title": "t"}', "page_size": "A4", "orientation": "portrait"}
NEW_TEMPLATE = {"name": "N", "slug": "n", "html": "<p>n</p>"}


@dataclass(frozen=True)
class Case:
    action: str
    method: str
    path: str  # {slug}, {job}, {failed}, {schedule} are filled from the workspace's rows
    ok: int
    body: Any = None


API = [
    Case("template.view", "get", "/api/v1/templates", 200),
    Case("template.view", "get", "/api/v1/templates/{slug}", 200),
    Case("template.view", "get", "/api/v1/templates/{slug}/versions", 200),
    Case(
        "template.edit", "post", "/api/v1/templates", 201, {"name": "N", "slug": "n", "html": "x"}
    ),
    Case("template.edit", "patch", "/api/v1/templates/{slug}", 200, {"name": "Renamed"}),
    Case("template.publish", "post", "/api/v1/templates/{slug}/publish", 200),
    Case("template.publish", "post", "/api/v1/templates/{slug}/rollback", 200, {"version": 1}),
    Case("template.edit", "delete", "/api/v1/templates/{slug}", 200),
    Case("template.edit", "post", "/api/v1/templates/{slug}/restore", 200),
    Case("job.submit", "post", "/api/v1/generate-pdf-async", 202, SUBMIT),
    # The diff renders both versions on the previews queue, as a preview does.
    Case("job.submit", "get", "/api/v1/templates/{slug}/diff", 200),
    Case("job.submit", "post", "/api/v1/generate-pdf-batch", 200, {"items": [SUBMIT]}),
    Case("job.view", "get", "/api/v1/jobs", 200),
    Case("job.view", "get", "/api/v1/jobs/{job}", 200),
    Case("job.view", "get", "/api/v1/jobs/{job}/deliveries", 200),
    Case("job.cancel", "post", "/api/v1/jobs/{job}/cancel", 200),
    Case("job.retry", "post", "/api/v1/jobs/{failed}/retry", 202),
    Case("usage.view", "get", "/api/v1/usage", 200),
    Case("schedule.view", "get", "/api/v1/schedules", 200),
    Case("schedule.view", "get", "/api/v1/schedules/{schedule}", 200),
    Case("schedule.view", "get", "/api/v1/schedules/{schedule}/runs", 200),
    Case(
        "schedule.manage",
        "post",
        "/api/v1/schedules",
        201,
        {"template": "tpl", "cron": "0 9 * * *"},
    ),
    Case("schedule.manage", "patch", "/api/v1/schedules/{schedule}", 200, {"paused": True}),
    Case("schedule.manage", "post", "/api/v1/schedules/{schedule}/run", 202),
    Case("schedule.manage", "delete", "/api/v1/schedules/{schedule}", 204),
    Case("audit.view", "get", "/api/v1/audit-log", 200),
    Case("audit.view", "get", "/api/v1/audit-log?format=csv", 200),
    Case("sso.manage", "get", "/api/v1/workspace/sso", 200),
    Case("sso.manage", "put", "/api/v1/workspace/sso", 200, {"domains": [], "role": "viewer"}),
    Case("job.submit", "post", "/api/v1/runs", 202, {"template": "tpl", "records": [{}]}),
    Case("job.view", "get", "/api/v1/runs/{run}", 200),
    Case("job.retry", "post", "/api/v1/runs/{failed_run}/retry-failed", 202),
]
PAGES = [
    Case("job.view", "get", "/", 200),
    Case("job.view", "get", "/jobs/{job}/", 200),
    Case("template.view", "get", "/reports/new/", 200),
    Case("template.view", "get", "/reports/new/{slug}/", 200),
    Case("template.view", "get", "/templates/{slug}/edit", 200),
    Case("template.edit", "get", "/templates/new", 200),
    Case("job.submit", "post", "/reports/new/{slug}/", 302, FORM),
    Case("job.cancel", "post", "/jobs/{job}/cancel", 302),
    Case("job.retry", "post", "/jobs/{failed}/retry", 302),
    Case("job.download", "get", "/jobs/{completed}/download", 302),
    Case("key.manage", "get", "/keys/", 200),
    Case("usage.view", "get", "/usage/", 200),
    Case("audit.view", "get", "/audit/", 200),
    Case("member.manage", "get", "/members/", 200),
    Case("member.manage", "post", "/members/", 302, {"email": "new@example.com", "role": "viewer"}),
    Case("sso.manage", "get", "/workspace/sso/", 200),
    Case("sso.manage", "post", "/workspace/sso/", 302, {"domains": "", "role": "viewer"}),
    Case("job.submit", "get", "/runs/new/", 200),
    Case("job.view", "get", "/runs/{run}/", 200),
    Case("job.retry", "post", "/runs/{failed_run}/retry", 302),
    Case("job.download", "get", "/runs/{completed_run}/download", 302),
]


def _fill(workspace: Workspace, owner: Any) -> dict[str, str]:
    """A template, a queued, a failed and a completed job of the workspace, and a running,
    a failed and a completed run."""
    template_create(owner=owner, workspace=workspace, name="T", slug="tpl", html="<p>{{title}}</p>")
    queued, _ = job_create(owner=owner, workspace=workspace, template_slug="tpl", data={})
    failed, _ = job_create(owner=owner, workspace=workspace, template_slug="tpl", data={})
    completed, _ = job_create(owner=owner, workspace=workspace, template_slug="tpl", data={})
    PdfJob.objects.filter(pk=failed.pk).update(status=JobStatus.FAILED, error="boom")
    PdfJob.objects.filter(pk=completed.pk).update(
        status=JobStatus.COMPLETED, pdf_file="x.pdf", page_count=1
    )
    schedule = schedule_create(
        workspace=workspace, created_by=owner, fields={"template": "tpl", "cron": "0 9 * * *"}
    )
    runs = {}
    for name, status, code in (
        ("run", None, ""),
        ("failed_run", JobStatus.FAILED, JobErrorCode.WORKER_LOST),
        ("completed_run", JobStatus.COMPLETED, ""),
    ):
        run = run_create(
            owner=owner, workspace=workspace, template_slug="tpl", records=records_from_list([{}])
        )
        if status:
            PdfJob.objects.filter(batch_id=run.run_id).update(
                status=status, error_code=code, pdf_file="x.pdf"
            )
            run_recount(run_id=run.run_id)
        runs[name] = str(run.run_id)
    return {
        **runs,
        "slug": "tpl",
        "schedule": str(schedule.schedule_id),
        "job": str(queued.job_id),
        "failed": str(failed.job_id),
        "completed": str(completed.job_id),
    }


@pytest.fixture(scope="module")
def team_rows(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """The team's rows, made once per test process for the module's 324 tests (making them
    per test was most of the module's time: ~110 statements each) inside a transaction
    that is rolled back at the end. Each test runs in a savepoint of it (pytest-django's
    `db`), so what a test writes is rolled back before the next, as with rows of its own."""
    with django_db_blocker.unblock(), transaction.atomic():
        owner = UserFactory(username="team-owner")
        workspace = workspace_create(name="Team", owner=owner)
        ids = _fill(workspace, owner)
        other_owner = UserFactory(username="other-owner")
        other = workspace_create(name="Other", owner=other_owner)
        yield {"workspace": workspace.pk, "owner": owner.pk, "ids": ids, "other": other.pk}
        transaction.set_rollback(True)


@pytest.fixture
def team(team_rows: dict[str, Any], db: None) -> dict[str, Any]:
    """The team's rows as this test's own objects (a test may change them)."""
    return {
        "workspace": Workspace.objects.get(pk=team_rows["workspace"]),
        "owner": get_user_model().objects.get(pk=team_rows["owner"]),
        "ids": dict(team_rows["ids"]),
        "other": Workspace.objects.get(pk=team_rows["other"]),
    }


def _call(client: Any, case: Case, ids: dict[str, str], *, json: bool) -> Any:
    path = case.path.format(**ids)
    if json:
        return getattr(client, case.method)(path, case.body, format="json")
    return getattr(client, case.method)(path, case.body or {})


def _assert_decided(response: Any, case: Case, role: str) -> None:
    if role in MAY[case.action]:
        assert response.status_code == case.ok, (role, case, response.content[:300])
        return
    assert response.status_code == 403, (role, case, response.content[:300])


@pytest.mark.parametrize("role", sorted(ALL))
@pytest.mark.parametrize("case", API, ids=lambda c: f"{c.method} {c.path}")
def test_api_key_of_each_role(team: dict[str, Any], role: str, case: Case) -> None:
    _, raw = api_key_create(user=team["owner"], workspace=team["workspace"], role=role)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    response = _call(client, case, team["ids"], json=True)
    _assert_decided(response, case, role)
    if response.status_code == 403:
        body = response.json()
        assert body["code"] == "permission_denied"
        assert set(body["roles_allowed"]) == MAY[case.action]
        assert role in body["error"]


@pytest.mark.parametrize("role", sorted(ALL))
@pytest.mark.parametrize("case", PAGES, ids=lambda c: f"{c.method} {c.path}")
def test_page_for_a_member_of_each_role(team: dict[str, Any], role: str, case: Case) -> None:
    member = team["owner"]
    if role != Role.OWNER:
        member = UserFactory(username=f"member-{role}")
        membership_set(workspace=team["workspace"], user=member, role=role)
    client = Client()
    client.force_login(member)
    session = client.session
    session[SESSION_KEY] = team["workspace"].pk
    session.save()
    response = _call(client, case, team["ids"], json=False)
    _assert_decided(response, case, role)
    if response.status_code == 403:
        assert "needs one of" in response.content.decode()


FOREIGN = [case for case in API + PAGES if "{" in case.path]


@pytest.mark.parametrize("case", FOREIGN, ids=lambda c: f"{c.method} {c.path}")
def test_another_workspaces_ids_are_404(team: dict[str, Any], case: Case) -> None:
    """The other workspace's owner (who may do everything in their own) asks for the
    team's rows: they do not exist for them."""
    other_owner = UserFactory(username="other-owner")
    if case.path.startswith("/api/"):
        _, raw = api_key_create(user=other_owner, workspace=team["other"], role="owner")
        client: Any = APIClient()
        client.credentials(HTTP_X_API_KEY=raw)
        response = _call(client, case, team["ids"], json=True)
    else:
        client = Client()
        client.force_login(other_owner)
        response = _call(client, case, team["ids"], json=False)
    assert response.status_code == 404, (case, response.content[:300])


def test_a_session_cannot_switch_into_a_workspace_it_is_not_in(team: dict[str, Any]) -> None:
    """A forged session value falls back to the person's own workspace: no team jobs."""
    outsider = UserFactory(username="outsider")
    client = Client()
    client.force_login(outsider)
    session = client.session
    session[SESSION_KEY] = team["workspace"].pk
    session.save()
    assert client.get(f"/jobs/{team['ids']['job']}/").status_code == 404
    assert team["ids"]["job"] not in client.get("/").content.decode()


@pytest.mark.parametrize("role", sorted(ALL))
def test_live_streams_check_the_role_and_the_workspace(team: dict[str, Any], role: str) -> None:
    """SSE and WebSocket both call follow_authorize / follower_resolve (jobs.live.access):
    every role may follow the workspace's jobs; another workspace's job is a 404."""
    _, raw = api_key_create(user=team["owner"], workspace=team["workspace"], role=role)
    caller, job_id = follow_authorize(api_key=raw, session_user=None, job_id=team["ids"]["job"])
    assert (job_id, caller.workspace_id) == (team["ids"]["job"], team["workspace"].pk)
    assert follower_resolve(api_key=raw, session_user=None).workspace_id == team["workspace"].pk
    _, foreign = api_key_create(user=team["owner"], workspace=team["other"], role=role)
    with pytest.raises(NotFound):
        follow_authorize(api_key=foreign, session_user=None, job_id=team["ids"]["job"])


def test_the_owners_stream_follows_the_session_workspace(team: dict[str, Any]) -> None:
    member = UserFactory(username="member-viewer")
    membership_set(workspace=team["workspace"], user=member, role="viewer")
    personal = follower_resolve(api_key=None, session_user=member, session={})
    chosen = follower_resolve(
        api_key=None, session_user=member, session={SESSION_KEY: team["workspace"].pk}
    )
    assert personal.workspace_id != team["workspace"].pk
    assert chosen.workspace_id == team["workspace"].pk


@pytest.mark.parametrize("role", ["viewer", "operator"])
def test_a_role_that_may_not_submit_may_not_preview(team: dict[str, Any], role: str) -> None:
    """Preview renders like a submit (the allowed roles are covered by tests/reports/api,
    with a preview worker); here only the refusal, which never reaches the queue."""
    _, raw = api_key_create(user=team["owner"], workspace=team["workspace"], role=role)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    response = client.post("/api/v1/templates/tpl/preview", {}, format="json")
    assert response.status_code == 403
    assert set(response.json()["roles_allowed"]) == MAY["job.submit"]


def test_the_job_page_offers_only_the_buttons_the_role_may_use(team: dict[str, Any]) -> None:
    viewer = UserFactory(username="member-viewer")
    membership_set(workspace=team["workspace"], user=viewer, role="viewer")
    client = Client()
    client.force_login(viewer)
    session = client.session
    session[SESSION_KEY] = team["workspace"].pk
    session.save()
    failed = client.get(f"/jobs/{team['ids']['failed']}/").content.decode()
    queued = client.get(f"/jobs/{team['ids']['job']}/").content.decode()
    assert "Retry</button>" not in failed
    assert "Cancel this job" not in queued
    client.force_login(team["owner"])
    session = client.session
    session[SESSION_KEY] = team["workspace"].pk
    session.save()
    assert "Retry</button>" in client.get(f"/jobs/{team['ids']['failed']}/").content.decode()


@pytest.mark.parametrize("role", sorted(ALL))
def test_only_an_owner_or_editor_uploads_the_workspaces_signing_certificate(
    team: dict[str, Any], role: str
) -> None:
    _, raw = api_key_create(user=team["owner"], workspace=team["workspace"], role=role)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    body = {
        "name": "S",
        "password": "p12-pass",
        "pkcs12": SimpleUploadedFile("s.p12", make_pkcs12()),
    }
    response = client.post("/api/v1/signing-certificates", body, format="multipart")
    if role in MAY["certificate.manage"]:
        assert response.status_code == 201, response.content[:300]
        stored = SigningCertificate.objects.get(public_id=response.json()["id"])
        assert stored.workspace == team["workspace"]
        return
    assert response.status_code == 403
    assert set(response.json()["roles_allowed"]) == MAY["certificate.manage"]


@pytest.mark.parametrize("role", sorted(ALL))
def test_only_an_owner_or_editor_lists_or_revokes_the_workspaces_certificates(
    team: dict[str, Any], role: str
) -> None:
    certificate = signing_certificate_create(
        owner=team["owner"],
        workspace=team["workspace"],
        name="S",
        pkcs12=make_pkcs12(),
        password="p12-pass",
    )
    _, raw = api_key_create(user=team["owner"], workspace=team["workspace"], role=role)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    listed = client.get("/api/v1/signing-certificates")
    revoked = client.delete(f"/api/v1/signing-certificates/{certificate.public_id}")
    if role in MAY["certificate.manage"]:
        assert listed.status_code == 200
        assert [c["id"] for c in listed.json()] == [str(certificate.public_id)]
        assert revoked.status_code == 204
        return
    for response in (listed, revoked):
        assert response.status_code == 403
        assert set(response.json()["roles_allowed"]) == MAY["certificate.manage"]
    assert SigningCertificate.objects.filter(pk=certificate.pk).exists()


@pytest.mark.parametrize("role", sorted(ALL))
def test_only_an_owner_or_editor_signs_with_a_submits_own_sign_step(
    team: dict[str, Any], role: str
) -> None:
    certificate = signing_certificate_create(
        owner=team["owner"],
        workspace=team["workspace"],
        name="S",
        pkcs12=make_pkcs12(),
        password="p12-pass",
    )
    _, raw = api_key_create(user=team["owner"], workspace=team["workspace"], role=role)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    sign = [{"type": "sign", "certificate": str(certificate.public_id)}]
    with mock.patch("jobs.dispatch.job_enqueue"):
        response = client.post(
            "/api/v1/generate-pdf-async",
            {"html_template": "<p>x</p>", "steps": sign},
            format="json",
        )
    if role in MAY["certificate.use"]:
        assert response.status_code == 202, response.content[:300]
        return
    assert response.status_code == 403, response.content[:300]
    body = response.json()
    if role in MAY["job.submit"]:  # may submit, may not sign: the answer says which action
        assert set(body["roles_allowed"]) == MAY["certificate.use"]
        assert "certificate.use" in body["error"]
        assert role in body["error"]


@pytest.mark.parametrize("role", sorted(ALL))
def test_only_an_owner_adds_an_s3_destination_to_a_schedule(
    team: dict[str, Any], role: str
) -> None:
    workspace = team["workspace"]
    workspace.schedule_s3_destinations = "team-reports"  # the operator's list
    workspace.save()
    _, raw = api_key_create(user=team["owner"], workspace=workspace, role=role)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    body = {
        "template": "tpl",
        "data": {"title": "t"},
        "cron": "0 6 * * *",
        "deliveries": [{"type": "s3", "bucket": "team-reports", "prefix": "daily/"}],
    }
    response = client.post("/api/v1/schedules", body, format="json")
    if role in MAY["schedule.s3"]:
        assert response.status_code == 201, response.content[:300]
        return
    assert response.status_code == 403, response.content[:300]
    if role in MAY["schedule.manage"]:
        assert set(response.json()["roles_allowed"]) == MAY["schedule.s3"]
