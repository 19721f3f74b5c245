"""The schedules API through real requests: create (201 with schedule_id and next_run_at),
bad input (400 naming the field), list, pause, run now, runs, delete."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from schedules.models import RunOutcome, Schedule, ScheduleRun
from tests.factories import ReportTemplateFactory, members_with_emails
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db

BODY = {
    "template": "weekly",
    "data": {"title": "Week"},
    "cron": "0 7 * * 1",
    "timezone": "Europe/Paris",
    "deliveries": [{"type": "email", "to": ["boss@example.com"]}],
}


@pytest.fixture
def client(user, api_key) -> APIClient:
    ReportTemplateFactory(owner=user, slug="weekly")
    members_with_emails(workspace_personal(user=user), "boss@example.com")
    api = APIClient()
    api.credentials(HTTP_X_API_KEY=api_key)
    return api


def test_create_answers_201_with_the_id_and_the_next_tick(client):
    response = client.post("/api/v1/schedules", BODY, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    schedule = Schedule.objects.get(schedule_id=body["schedule_id"])
    assert body["next_run_at"] == schedule.next_run_at.isoformat()
    assert body["template"] == "weekly"
    assert body["deliveries"] == BODY["deliveries"]
    listed = client.get("/api/v1/schedules").json()
    assert [s["schedule_id"] for s in listed["results"]] == [body["schedule_id"]]
    # No name given (as the CLI sends it): named after its template, not left blank.
    assert body["name"] == schedule.template.name


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"cron": "0 25 * * *"}, "cron"),
        ({"timezone": "Moon/Base"}, "timezone"),
        ({"deliveries": [{"type": "s3"}]}, "deliveries[0].bucket"),
        ({"cron": None}, "cron"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client, change, field):
    body = {k: v for k, v in {**BODY, **change}.items() if v is not None}
    response = client.post("/api/v1/schedules", body, format="json")
    assert response.status_code == 400
    answer = response.json()
    assert (answer["code"], answer["field"]) == ("invalid_schedule", field)
    assert field in answer["error"]


def test_every_wrong_field_is_named_at_once_in_fields_like_other_400s(client):
    body = {
        **BODY,
        "cron": "0 25 * * *",
        "timezone": "Moon/Base",
        "deliveries": [{"type": "email", "to": ["not-an-address"]}],
    }
    response = client.post("/api/v1/schedules", body, format="json")
    assert response.status_code == 400
    answer = response.json()
    assert answer["code"] == "invalid_schedule"
    assert answer["field"] == "cron"  # the first, at the top level like every error's details
    assert sorted(answer["fields"]) == ["cron", "deliveries[0].to[0]", "timezone"]
    assert "details" not in answer
    for field in answer["fields"]:
        assert field in answer["error"]
    missing = client.post(
        "/api/v1/schedules", {"template": "weekly", "timezone": "Moon"}, format="json"
    )
    assert sorted(missing.json()["fields"]) == ["cron", "timezone"]
    assert not Schedule.objects.exists()


def test_the_page_form_names_every_wrong_field_at_once(user):
    from django.test import Client

    ReportTemplateFactory(owner=user, slug="weekly")
    browser = Client()
    browser.force_login(user)
    form = {"template": "weekly", "cron": "every day", "timezone": "Moon", "data": "{oops"}
    answer = browser.post("/schedules/", form)
    assert answer.status_code == 400
    html = answer.content.decode()
    assert "Fix these 3 fields" in html
    # Named by the form's labels, not the API's field names.
    assert "Data: not JSON" in html
    assert "Cron expression: " in html
    assert "Time zone: unknown time zone" in html
    assert not Schedule.objects.exists()


def test_pause_resume_run_now_runs_and_delete(client):
    created = client.post("/api/v1/schedules", BODY, format="json").json()
    path = f"/api/v1/schedules/{created['schedule_id']}"
    paused = client.patch(path, {"paused": True}, format="json").json()
    assert (paused["paused"], paused["next_run_at"]) == (True, None)
    resumed = client.patch(path, {"paused": False, "name": "Weekly"}, format="json").json()
    assert resumed["next_run_at"] is not None
    assert resumed["name"] == "Weekly"
    assert resumed["cron"] == BODY["cron"]  # a PATCH changes only what it sends
    run = client.post(f"{path}/run")
    assert run.status_code == 202
    assert (run.json()["trigger"], run.json()["outcome"]) == ("manual", RunOutcome.STARTING)
    runs = client.get(f"{path}/runs").json()
    assert [r["run_id"] for r in runs["results"]] == [run.json()["run_id"]]
    assert client.get(path).json()["name"] == "Weekly"
    assert client.delete(path).status_code == 204
    assert client.get(path).status_code == 404
    assert not ScheduleRun.objects.exists()


def test_an_unknown_id_is_a_404(client):
    assert client.get("/api/v1/schedules/not-a-uuid").status_code == 404
    response = client.get("/api/v1/schedules/00000000-0000-0000-0000-000000000000/runs")
    assert response.status_code == 404


def test_one_schedule_past_the_workspace_cap_is_a_400_naming_the_limit(client, settings):
    settings.SCHEDULE_MAX_PER_WORKSPACE = 2
    for _ in range(2):
        assert client.post("/api/v1/schedules", BODY, format="json").status_code == 201
    response = client.post("/api/v1/schedules", BODY, format="json")
    assert response.status_code == 400
    answer = response.json()
    assert answer["code"] == "too_many_schedules"
    assert "SCHEDULE_MAX_PER_WORKSPACE=2" in answer["error"]
    assert Schedule.objects.count() == 2
