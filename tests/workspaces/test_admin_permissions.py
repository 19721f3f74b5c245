"""Admin actions ask workspaces.permissions per row: an operator (staff, operator in one
workspace) re-drives and discards dead letters in every workspace but edits no template;
staff with another role act only where that role may."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from jobs.models import DeadLetter, JobStatus, PdfJob
from reports.models import ReportTemplate
from tests.factories import PdfJobFactory, ReportTemplateFactory, UserFactory
from workspaces.services import membership_set, workspace_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sent_tasks")]


def _staff(username: str, role: str) -> Client:
    """A staff user whose only membership is `role` in a workspace of their own team."""
    user = UserFactory(username=username, is_staff=True)

    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label__in=["jobs", "reports"])
    )
    team = workspace_create(name=f"{username} team", owner=UserFactory(username=f"{username}-o"))
    membership_set(workspace=team, user=user, role=role)
    client = Client()
    client.force_login(user)
    return client


def test_an_operator_redrives_dead_letters_of_any_workspace(
    sent_tasks, django_capture_on_commit_callbacks
):
    letter = DeadLetter.objects.create(job=PdfJobFactory(status=JobStatus.FAILED), error="boom")
    operator = _staff("olga", "operator")
    with django_capture_on_commit_callbacks(execute=True):
        page = operator.post(
            "/admin/jobs/deadletter/",
            {"action": "redrive", "_selected_action": [letter.pk]},
            follow=True,
        )
    assert "Re-driven 1 job(s)." in page.content.decode()
    assert PdfJob.objects.get(pk=letter.job.pk).status == JobStatus.QUEUED
    assert sent_tasks.ids("job_enqueue") == [letter.job.job_id]


def test_staff_who_is_only_a_viewer_cannot_redrive_or_discard(sent_tasks):
    letter = DeadLetter.objects.create(job=PdfJobFactory(status=JobStatus.FAILED), error="boom")
    viewer = _staff("vera", "viewer")
    page = viewer.post(
        "/admin/jobs/deadletter/",
        {"action": "redrive", "_selected_action": [letter.pk]},
        follow=True,
    ).content.decode()
    assert "1 skipped: job.redrive there needs one of: owner, operator." in page
    viewer.post("/admin/jobs/deadletter/", {"action": "discard", "_selected_action": [letter.pk]})
    assert DeadLetter.objects.filter(pk=letter.pk).exists()
    assert PdfJob.objects.get(pk=letter.job.pk).status == JobStatus.FAILED
    assert sent_tasks.ids("job_enqueue") == []


def test_an_operator_archives_no_template():
    template = ReportTemplateFactory()
    operator = _staff("otto", "operator")
    operator.post(
        "/admin/reports/reporttemplate/", {"action": "archive", "_selected_action": [template.pk]}
    )
    assert ReportTemplate.objects.get(pk=template.pk).archived_at is None
