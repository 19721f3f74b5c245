"""Schedules in the admin: pause, resume and run-now actions through the role table, an
edit checked like the API's (a bad cron is a form error, not a 500), the runs listed."""

from __future__ import annotations

import pytest
from django.test import Client

from schedules import services
from schedules.models import Schedule, ScheduleRun
from tests.factories import ReportTemplateFactory, UserFactory
from workspaces.services import membership_set, workspace_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sent_tasks")]


@pytest.fixture
def team():
    owner = UserFactory(username="adm-owner")
    workspace = workspace_create(name="Ops team", owner=owner)
    ReportTemplateFactory(owner=owner, workspace=workspace, slug="board")
    schedule = services.schedule_create(
        workspace=workspace,
        created_by=owner,
        fields={"template": "board", "cron": "0 9 * * 1", "name": "Board pack"},
    )
    return workspace, schedule


def _staff(workspace, role: str) -> Client:
    user = UserFactory(username=f"staff-{role}", is_staff=True, is_superuser=role == "super")
    if role != "super":
        from django.contrib.auth.models import Permission

        user.user_permissions.set(Permission.objects.filter(content_type__app_label="schedules"))
        membership_set(workspace=workspace, user=user, role=role)
    client = Client()
    client.force_login(user)
    return client


def test_pause_resume_and_run_now_actions(team, django_capture_on_commit_callbacks):
    workspace, schedule = team
    admin = _staff(workspace, "super")
    listing = admin.get("/admin/schedules/schedule/").content.decode()
    assert "Board pack" in listing
    for action in ("pause", "resume", "run_now"):
        page = admin.post(
            "/admin/schedules/schedule/",
            {"action": action, "_selected_action": [schedule.pk]},
            follow=True,
        )
        assert page.status_code == 200
        schedule.refresh_from_db()
        if action == "pause":
            assert (schedule.paused, schedule.next_run_at) == (True, None)
            # Said in words: the boolean icon showed a green tick for "paused".
            listed = admin.get("/admin/schedules/schedule/").content.decode()
            assert '<td class="field-state">Paused</td>' in listed
            assert "icon-yes.svg" not in listed
    assert schedule.paused is False
    assert schedule.next_run_at is not None
    assert ScheduleRun.objects.filter(schedule=schedule, trigger="manual").count() == 1
    change = admin.get(f"/admin/schedules/schedule/{schedule.pk}/change/").content.decode()
    assert "Run now" in change  # the run, inline (its trigger)


def test_a_viewer_on_staff_cannot_run_a_schedule(team):
    workspace, schedule = team
    viewer = _staff(workspace, "viewer")
    page = viewer.post(
        "/admin/schedules/schedule/",
        {"action": "run_now", "_selected_action": [schedule.pk]},
        follow=True,
    )
    assert "1 skipped: schedule.manage there needs one of" in page.content.decode()
    assert not ScheduleRun.objects.exists()


def test_an_edit_is_checked_like_the_api(team):
    workspace, schedule = team
    admin = _staff(workspace, "super")
    url = f"/admin/schedules/schedule/{schedule.pk}/change/"
    form = {
        "name": "Board pack",
        "cron": "0 61 * * *",
        "timezone": "UTC",
        "deliveries": "[]",
        "runs-TOTAL_FORMS": "0",
        "runs-INITIAL_FORMS": "0",
    }
    bad = admin.post(url, form)
    assert bad.status_code == 200
    assert "is not a valid cron expression" in bad.content.decode()
    good = admin.post(url, {**form, "cron": "*/15 * * * *", "timezone": "Asia/Tokyo"})
    assert good.status_code == 302, good.content.decode()[:2000]
    schedule.refresh_from_db()
    assert (schedule.cron, schedule.timezone) == ("*/15 * * * *", "Asia/Tokyo")
    assert Schedule.objects.count() == 1


def test_the_admin_pages_of_the_jobs_app_era_redirect_to_the_schedules_app(admin_client):
    answer = admin_client.get("/admin/jobs/schedule/12/change/?_changelist_filters=q")
    assert answer.status_code == 302
    assert answer["Location"] == "/admin/schedules/schedule/12/change/?_changelist_filters=q"
