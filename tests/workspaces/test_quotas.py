"""Quotas per workspace: jobs submitted, pages and bytes rendered per UTC day and month,
refused with 429 and Retry-After; shared by the workspace's members and keys; shown to
owners; and fair dispatch taking turns by workspace."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import api_key_create
from jobs import services
from jobs.models import JobStatus, PdfJob
from jobs.quotas import QuotaExceeded, period_end, workspace_usage
from jobs.worker.fairness import job_fairer_than
from tests.factories import PdfJobFactory, UserFactory
from workspaces.models import WorkspaceQuota
from workspaces.services import membership_set, workspace_create, workspace_personal

pytestmark = pytest.mark.django_db
BODY = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}}


def _client(user, workspace, role="editor") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=user, workspace=workspace, role=role)[1])
    return client


def test_jobs_per_day_is_shared_by_the_workspaces_keys_and_refused_with_retry_after(settings):
    settings.WORKSPACE_JOBS_PER_DAY = 2
    owner, member = UserFactory(), UserFactory()
    team = workspace_create(name="Team", owner=owner)
    membership_set(workspace=team, user=member, role="requester")
    first, second = _client(owner, team), _client(member, team, "requester")
    codes = [
        c.post("/api/v1/generate-pdf-async", BODY, format="json").status_code
        for c in (first, second)
    ]
    assert codes == [202, 202]
    refused = first.post("/api/v1/generate-pdf-async", BODY, format="json")
    assert refused.status_code == 429
    body = refused.json()
    assert (body["code"], body["limit"], body["limit_value"]) == (
        "quota_exceeded",
        "WORKSPACE_JOBS_PER_DAY",
        2,
    )
    now = timezone.now()
    midnight = period_end(now, "day")
    assert abs(int(refused["Retry-After"]) - (midnight - now).total_seconds()) < 5
    assert PdfJob.objects.filter(workspace=team).count() == 2
    # The owner's own workspace has its own count.
    services.job_create(owner=owner, **BODY)


def test_pages_rendered_this_month_refuse_the_next_submit(settings):
    settings.WORKSPACE_PAGES_PER_MONTH = 5
    user = UserFactory()
    PdfJobFactory(
        owner=user,
        status=JobStatus.COMPLETED,
        page_count=3,
        size_bytes=10,
        completed_at=timezone.now(),
    )
    services.job_create(owner=user, **BODY)  # 3 of 5 pages used
    PdfJobFactory(
        owner=user,
        status=JobStatus.COMPLETED,
        page_count=2,
        size_bytes=10,
        completed_at=timezone.now(),
    )
    with pytest.raises(QuotaExceeded) as refused:
        services.job_create(owner=user, **BODY)
    assert refused.value.details["limit"] == "WORKSPACE_PAGES_PER_MONTH"
    assert "used 5 pages this month" in refused.value.message


def test_a_workspaces_quota_row_overrides_the_setting(settings):
    settings.WORKSPACE_BYTES_PER_DAY = 0  # no limit by default
    user = UserFactory()
    WorkspaceQuota.objects.create(workspace=workspace_personal(user=user), bytes_per_day=100)
    PdfJobFactory(
        owner=user,
        status=JobStatus.COMPLETED,
        page_count=1,
        size_bytes=100,
        completed_at=timezone.now(),
    )
    with pytest.raises(QuotaExceeded, match="WORKSPACE_BYTES_PER_DAY"):
        services.job_create(owner=user, **BODY)
    services.job_create(owner=UserFactory(), **BODY)  # others keep the setting's none


def test_usage_counts_jobs_pages_and_bytes_but_not_cache_hits():
    user = UserFactory()
    done = PdfJobFactory(
        owner=user,
        status=JobStatus.COMPLETED,
        page_count=4,
        size_bytes=1000,
        completed_at=timezone.now(),
    )
    PdfJobFactory(
        owner=user,
        status=JobStatus.COMPLETED,
        page_count=4,
        size_bytes=1000,
        completed_at=timezone.now(),
        cached_from=done.job_id,
    )
    PdfJobFactory(owner=user)
    used = workspace_usage(workspace=workspace_personal(user=user))
    assert used == {
        "jobs_per_day": 3,
        "jobs_per_month": 3,
        "pages_per_day": 4,
        "pages_per_month": 4,
        "bytes_per_day": 1000,
        "bytes_per_month": 1000,
    }


def test_period_ends_at_the_next_utc_day_and_month():
    now = datetime(2026, 12, 31, 23, 59, tzinfo=UTC)
    assert period_end(now, "day") == datetime(2027, 1, 1, tzinfo=UTC)
    assert period_end(now, "month") == datetime(2027, 1, 1, tzinfo=UTC)
    assert period_end(datetime(2026, 2, 3, 1, tzinfo=UTC), "month") == datetime(
        2026, 3, 1, tzinfo=UTC
    )


def test_owners_see_usage_and_others_get_403_naming_the_role(settings):
    settings.WORKSPACE_JOBS_PER_MONTH = 50
    owner, viewer = UserFactory(), UserFactory()
    team = workspace_create(name="Team", owner=owner)
    membership_set(workspace=team, user=viewer, role="viewer")
    PdfJobFactory(owner=owner, workspace=team)
    answer = _client(owner, team, "owner").get("/api/v1/usage")
    assert answer.status_code == 200
    rows = {row["name"]: row for row in answer.json()["quotas"]}
    assert (rows["jobs_per_month"]["used"], rows["jobs_per_month"]["limit"]) == (1, 50)
    denied = _client(owner, team, "viewer").get("/api/v1/usage")
    assert denied.status_code == 403
    assert denied.json()["roles_allowed"] == ["owner"]


def test_fair_dispatch_takes_turns_by_workspace_not_by_person():
    """Two members of one team count as one tenant: the team's second member's job
    yields to another workspace while the team already runs one."""
    alice, bob, carol = UserFactory(), UserFactory(), UserFactory()
    team = workspace_create(name="Team", owner=alice)
    membership_set(workspace=team, user=bob, role="requester")
    PdfJobFactory(owner=alice, workspace=team, status=JobStatus.PROCESSING, worker="w:1")
    bobs = PdfJobFactory(owner=bob, workspace=team)
    carols = PdfJobFactory(owner=carol)
    assert job_fairer_than(job_id=bobs.job_id) == carols.job_id
    assert job_fairer_than(job_id=carols.job_id) is None
