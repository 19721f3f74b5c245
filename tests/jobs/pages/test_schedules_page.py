"""The schedules pages with Django's test client: create from the form (a bad cron is a 400
with the message on the form), pause and run now, and who may."""

from __future__ import annotations

import pytest
from django.test import Client

from schedules.models import Schedule, ScheduleRun
from tests.factories import ReportTemplateFactory, UserFactory, members_with_emails
from workspaces.services import membership_set, workspace_personal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sent_tasks")]


@pytest.fixture
def signed_in(user) -> Client:
    ReportTemplateFactory(owner=user, slug="weekly", name="Weekly")
    members_with_emails(workspace_personal(user=user), "a@example.com", "b@example.com")
    client = Client()
    client.force_login(user)
    return client


def test_create_pause_and_run_now_from_the_pages(signed_in):
    form = {
        "template": "weekly",
        "name": "Mon",
        "cron": "0 7 * * 1",
        "timezone": "Europe/Oslo",
        "data": '{"title": "W"}',
        "email_to": "a@example.com, b@example.com",
    }
    created = signed_in.post("/schedules/", form)
    assert created.status_code == 302
    schedule = Schedule.objects.get()
    assert schedule.deliveries == [{"type": "email", "to": ["a@example.com", "b@example.com"]}]
    assert schedule.data == {"title": "W"}
    page = signed_in.get(created["Location"]).content.decode()
    assert "a@example.com, b@example.com" in page
    # The next run at 07:00 on a Monday in the schedule's own zone, as its cron says.
    assert " 07:00 Europe/Oslo" in page
    assert " UTC" not in page
    assert (
        signed_in.post(f"/schedules/{schedule.schedule_id}/pause", {"paused": "true"}).status_code
        == 302
    )
    schedule.refresh_from_db()
    assert schedule.paused
    assert signed_in.post(f"/schedules/{schedule.schedule_id}/run").status_code == 302
    assert ScheduleRun.objects.filter(schedule=schedule).count() == 1
    assert "Run now" in signed_in.get(f"/schedules/{schedule.schedule_id}/").content.decode()
    listing = signed_in.get("/schedules/").content.decode()
    assert "Mon" in listing
    assert "Paused" in listing


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cron": "nope"}, "Cron expression: "),
        ({"timezone": "Nowhere/City"}, "Time zone: "),
        ({"data": "{not json"}, "Data: not JSON"),
        ({"email_to": "x"}, "Mail the PDF to: "),
    ],
)
def test_bad_input_is_shown_on_the_form(signed_in, change, message):
    form = {"template": "weekly", "cron": "0 7 * * 1", **change}
    response = signed_in.post("/schedules/", form)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Schedule.objects.exists()


def test_a_viewer_sees_schedules_but_may_not_create_or_run(user):
    viewer = UserFactory(username="just-looking")
    workspace = workspace_personal(user=user)
    membership_set(workspace=workspace, user=viewer, role="viewer")
    ReportTemplateFactory(owner=user, slug="weekly")
    owner = Client()
    owner.force_login(user)
    owner.post("/schedules/", {"template": "weekly", "cron": "0 7 * * 1"})
    schedule = Schedule.objects.get()
    client = Client()
    client.force_login(viewer)
    session = client.session
    session["workspace_id"] = workspace.pk
    session.save()
    assert "New schedule" not in client.get("/schedules/").content.decode()
    assert client.get(f"/schedules/{schedule.schedule_id}/").status_code == 200
    assert client.post(f"/schedules/{schedule.schedule_id}/run").status_code == 403
    assert (
        client.post("/schedules/", {"template": "weekly", "cron": "0 7 * * 1"}).status_code == 403
    )
