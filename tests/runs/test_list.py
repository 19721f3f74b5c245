"""Runs can be found again: GET runs lists a workspace's runs with filters and paging,
/runs/ lists them in the browser, and the admin has them."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import api_key_create
from reports.services import template_create
from runs.models import Run, RunStatus
from runs.records import records_from_list
from runs.services import run_create
from tests.factories import UserFactory
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db


@pytest.fixture
def runs(user):
    for slug in ("letter", "invoice"):
        template_create(owner=user, name=slug.title(), slug=slug, html="<p>{{n}}</p>")
    made = []
    for slug, output in (("letter", "zip"), ("invoice", "combined"), ("letter", "separate")):
        made.append(
            run_create(
                owner=user,
                workspace=workspace_personal(user=user),
                template_slug=slug,
                records=records_from_list([{"n": 1}, {"n": 2}]),
                output=output,
            )
        )
    Run.objects.filter(pk=made[0].pk).update(status=RunStatus.COMPLETED, completed=2)
    return made


def test_runs_are_listed_newest_first_with_filters_and_paging(api, runs):
    answer = api.get("/api/v1/runs")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["count"] == 3
    assert [r["run_id"] for r in body["results"]] == [str(r.run_id) for r in reversed(runs)]
    first = body["results"][0]
    assert first["template"] == "letter"
    assert first["output"] == "separate"
    assert first["status_url"].endswith(f"/api/v1/runs/{runs[2].run_id}")
    assert "records" not in first

    letters = api.get("/api/v1/runs", {"template": "letter"}).json()
    assert {r["run_id"] for r in letters["results"]} == {str(runs[0].run_id), str(runs[2].run_id)}
    done = api.get("/api/v1/runs", {"status": "completed"}).json()
    assert [r["run_id"] for r in done["results"]] == [str(runs[0].run_id)]
    combined = api.get("/api/v1/runs", {"output": "combined"}).json()
    assert [r["run_id"] for r in combined["results"]] == [str(runs[1].run_id)]
    paged = api.get("/api/v1/runs", {"limit": 2}).json()
    assert len(paged["results"]) == 2
    assert "offset=2" in paged["next"]


def test_an_unknown_status_names_the_valid_ones_and_another_workspace_sees_none(api, runs):
    bad = api.get("/api/v1/runs", {"status": "done"})
    assert bad.status_code == 400
    assert "running, completed, partial, failed" in str(bad.json())
    stranger = APIClient()
    stranger.credentials(HTTP_X_API_KEY=api_key_create(user=UserFactory(), name="x")[1])
    assert stranger.get("/api/v1/runs").json()["count"] == 0


def test_the_runs_page_lists_my_runs_with_links(client, user, runs):
    client.force_login(user)
    answer = client.get("/runs/")
    assert answer.status_code == 200
    html = answer.content.decode()
    for run in runs:
        assert f"/runs/{run.run_id}/" in html
    assert "New run" in html
    only = client.get("/runs/?status=completed").content.decode()
    assert f"/runs/{runs[0].run_id}/" in only
    assert f"/runs/{runs[1].run_id}/" not in only


def test_the_admin_lists_runs(client, runs):
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    listed = client.get("/admin/runs/run/")
    assert listed.status_code == 200
    assert str(runs[0].run_id) in listed.content.decode()
    detail = client.get(f"/admin/runs/run/{runs[0].pk}/change/")
    assert detail.status_code == 200
    assert "Letter" in detail.content.decode()
