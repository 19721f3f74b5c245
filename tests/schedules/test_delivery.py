"""A finished run's deliveries against real receivers: mail (Django's locmem outbox), a
signed webhook to a loopback server, an object in a moto_server bucket; failures kept per
delivery and tried again, sent ones never twice."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime

import pytest
from django.core import mail
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient
from standardwebhooks.webhooks import Webhook

from accounts.services import api_key_create, webhook_signing_secrets
from jobs.models import JobStatus, PdfJob
from reports.services import template_create
from schedules import delivery, services
from schedules.cron import ScheduleInvalid
from schedules.delivery import DeliveriesPending, schedule_run_deliver
from schedules.models import RunOutcome, Schedule, ScheduleRun
from schedules.running import schedule_run_start
from schedules.validation import s3_destination_allowed
from tests.factories import ReportTemplateFactory, UserFactory, members_with_emails
from tests.http_receiver import Receiver
from tests.moto_s3 import moto_s3, s3_client
from workspaces.services import workspace_create, workspace_personal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sent_tasks")]
PDF = b"%PDF-1.4 scheduled report"


@pytest.fixture
def owner():
    user = UserFactory(username="deliverer")
    ReportTemplateFactory(owner=user, slug="ledger", name="Ledger")
    workspace = workspace_personal(user=user)
    # The operator's list for this workspace (the admin): only these, with our credentials.
    workspace.schedule_s3_destinations = "ledgers/monthly\nno-such-bucket"
    workspace.save()
    members_with_emails(workspace, "a@example.com", "b@example.com")
    return user


def _completed_run(owner, deliveries, *, key=None, job_status=JobStatus.COMPLETED) -> ScheduleRun:
    schedule = services.schedule_create(
        workspace=workspace_personal(user=owner),
        created_by=owner,
        api_key=key,
        fields={
            "template": "ledger",
            "cron": "0 6 1 * *",
            "timezone": "Europe/Berlin",
            "data": {"title": "L"},
            "deliveries": deliveries,
        },
    )
    run = services.schedule_run_now(schedule=schedule)
    ScheduleRun.objects.filter(pk=run.pk).update(
        scheduled_for=datetime(2026, 12, 1, 5, 0, tzinfo=UTC)
    )
    schedule_run_start(run_id=run.run_id)
    run.refresh_from_db()
    key_name = storages["reports"].save(f"{run.job.job_id}.pdf", ContentFile(PDF))
    PdfJob.objects.filter(pk=run.job_id).update(
        status=job_status,
        pdf_file=key_name,
        page_count=1,
        size_bytes=len(PDF),
        completed_at=timezone.now(),
        error="boom" if job_status == JobStatus.FAILED else "",
    )
    return run


def test_mail_goes_to_every_listed_address_with_the_pdf(owner, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    run = _completed_run(owner, [{"type": "email", "to": ["a@example.com", "b@example.com"]}])
    assert schedule_run_deliver(run_id=run.run_id) == RunOutcome.DELIVERED
    (message,) = mail.outbox
    assert message.to == ["a@example.com", "b@example.com"]
    assert message.subject == "Scheduled report “Ledger”"
    (name, content, kind) = message.attachments[0]
    assert (name, content, kind) == ("ledger-20261201-0600.pdf", PDF, "application/pdf")
    # The body names the same tick as the attachment, in the schedule's zone.
    assert "for 2026-12-01 06:00 Europe/Berlin is ready." in message.body
    assert "UTC" not in message.body
    assert f"/api/v1/jobs/{run.job.job_id}/pdf?token=" in message.body
    run.refresh_from_db()
    assert run.delivery_results[0]["status"] == "sent"
    assert run.finished_at is not None


def test_the_webhook_is_signed_and_a_failed_one_is_retried_alone(owner, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SCHEDULE_DELIVERY_MAX_ATTEMPTS = 3
    key, _ = api_key_create(user=owner, name="sched")
    receiver = Receiver(statuses=[500])
    try:
        run = _completed_run(
            owner,
            [{"type": "email", "to": ["a@example.com"]}, {"type": "webhook", "url": receiver.url}],
            key=key,
        )
        with pytest.raises(DeliveriesPending):
            schedule_run_deliver(run_id=run.run_id)
        run.refresh_from_db()
        assert [r["status"] for r in run.delivery_results] == ["sent", "failed"]
        assert run.delivery_results[1]["error"] == "WebhookRefused: HTTP 500"
        assert schedule_run_deliver(run_id=run.run_id) == RunOutcome.DELIVERED
        assert len(mail.outbox) == 1  # the mail went once
        assert len(receiver.raw) == 2
        headers, body = receiver.received[-1]
        secret = webhook_signing_secrets(key=key)[0]
        verified = Webhook(secret).verify(receiver.raw[-1], headers)  # raises if forged
        assert verified == body
        assert body["type"] == "schedule.run.completed"
        assert body["data"]["run_id"] == str(run.run_id)
        assert body["data"]["job_id"] == str(run.job.job_id)
        # The same webhook-id on the retry: a receiver can drop a duplicate.
        assert receiver.received[0][0]["webhook-id"] == headers["webhook-id"]
    finally:
        receiver.server.shutdown()


def test_deliveries_that_keep_failing_end_delivery_failed(owner, settings):
    settings.SCHEDULE_DELIVERY_MAX_ATTEMPTS = 2
    key, _ = api_key_create(user=owner, name="sched")
    receiver = Receiver(statuses=[502, 502, 502])
    try:
        run = _completed_run(owner, [{"type": "webhook", "url": receiver.url}], key=key)
        with pytest.raises(DeliveriesPending):
            schedule_run_deliver(run_id=run.run_id)
        assert schedule_run_deliver(run_id=run.run_id) == RunOutcome.DELIVERY_FAILED
        run.refresh_from_db()
        assert "HTTP 502" in run.error
        # Which delivery failed, not only its kind: the run's error and its page say.
        assert run.error.startswith(f"webhook to {receiver.url}: ")
        client = Client()
        client.force_login(owner)
        html = client.get(f"/schedules/{run.schedule.schedule_id}/").content.decode()
        assert f"Failed: webhook to {receiver.url}" in html
        assert schedule_run_deliver(run_id=run.run_id) == RunOutcome.DELIVERY_FAILED
        assert len(receiver.raw) == 2  # finished: no third attempt
    finally:
        receiver.server.shutdown()


def test_a_failed_job_fails_the_run_and_delivers_nothing(owner, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    run = _completed_run(owner, [{"type": "email", "to": ["a@example.com"]}], job_status="failed")
    assert schedule_run_deliver(run_id=run.run_id) == RunOutcome.FAILED
    run.refresh_from_db()
    assert "failed: boom" in run.error
    assert mail.outbox == []


@pytest.mark.process  # a moto_server of its own
def test_the_pdf_lands_in_the_s3_bucket_under_the_prefix(owner, settings, tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with moto_s3(tmp_path / "moto.log") as endpoint:
        settings.SCHEDULE_S3_ENDPOINT_URL = endpoint
        s3_client(endpoint).create_bucket(Bucket="ledgers")
        run = _completed_run(owner, [{"type": "s3", "bucket": "ledgers", "prefix": "monthly/"}])
        assert schedule_run_deliver(run_id=run.run_id) == RunOutcome.DELIVERED
        stored = s3_client(endpoint).get_object(
            Bucket="ledgers", Key="monthly/ledger-20261201-0600.pdf"
        )
        assert stored["Body"].read() == PDF
        missing = _completed_run(owner, [{"type": "s3", "bucket": "no-such-bucket"}])
        settings.SCHEDULE_DELIVERY_MAX_ATTEMPTS = 1
        assert schedule_run_deliver(run_id=missing.run_id) == RunOutcome.DELIVERY_FAILED
        missing.refresh_from_db()
        assert "NoSuchBucket" in missing.error
    assert json.loads(json.dumps(run.schedule.deliveries))[0]["bucket"] == "ledgers"


@pytest.fixture
def team(db):
    """A team workspace whose operator allowed one bucket prefix; a key of each role."""
    boss = UserFactory(username="team-boss")
    workspace = workspace_create(name="Ledgers", owner=boss)
    workspace.schedule_s3_destinations = "shared-reports/ledgers-team/"
    workspace.save()
    template_create(owner=boss, workspace=workspace, name="Ledger", slug="ledger", html="<p/>")
    keys = {}
    for role in ("owner", "editor", "requester"):
        keys[role] = APIClient()
        keys[role].credentials(
            HTTP_X_API_KEY=api_key_create(user=boss, workspace=workspace, role=role)[1]
        )
    return {"workspace": workspace, **keys}


def _schedule_body(bucket: str, prefix: str) -> dict:
    return {
        "template": "ledger",
        "cron": "0 6 1 * *",
        "deliveries": [{"type": "s3", "bucket": bucket, "prefix": prefix}],
    }


@pytest.mark.parametrize("role", ["editor", "requester"])
def test_only_an_owner_sets_an_s3_destination(team, role):
    body = _schedule_body("shared-reports", "ledgers-team/monthly")
    refused = team[role].post("/api/v1/schedules", body, format="json")
    assert refused.status_code == 403, refused.json()
    assert refused.json()["roles_allowed"] == ["owner"]
    assert "schedule.s3" in refused.json()["error"]
    # Nor by editing a schedule without one: adding the destination is what needs it.
    made = team[role].post(
        "/api/v1/schedules", _schedule_body("x", "y") | {"deliveries": []}, format="json"
    )
    assert made.status_code == 201, made.json()
    edited = team[role].patch(
        f"/api/v1/schedules/{made.json()['schedule_id']}",
        {"deliveries": body["deliveries"]},
        format="json",
    )
    assert edited.status_code == 403, edited.json()


@pytest.mark.parametrize(
    ("bucket", "prefix"),
    [
        ("service-own-bucket", ""),  # the service's bucket, or anyone else's
        ("shared-reports", ""),  # the shared bucket, outside the workspace's prefix
        ("shared-reports", "other-team/"),  # another workspace's deliveries
        ("shared-reports", "ledgers-teamster/"),  # a prefix that only starts the same
    ],
)
def test_an_owner_cannot_name_a_bucket_off_the_operators_list(team, bucket, prefix):
    refused = team["owner"].post("/api/v1/schedules", _schedule_body(bucket, prefix), format="json")
    assert refused.status_code == 400, refused.json()
    assert "is not one of this workspace's S3 destinations" in refused.json()["error"]
    assert refused.json()["field"] == "deliveries[0].bucket"


def test_an_owner_sets_a_destination_on_the_list(team):
    body = _schedule_body("shared-reports", "/ledgers-team/2026/")
    made = team["owner"].post("/api/v1/schedules", body, format="json")
    assert made.status_code == 201, made.json()
    assert made.json()["deliveries"][0]["prefix"] == "ledgers-team/2026/"
    # A requester may still edit the schedule's other fields, and keep its destination.
    kept = team["requester"].patch(
        f"/api/v1/schedules/{made.json()['schedule_id']}",
        {"name": "Monthly", "deliveries": made.json()["deliveries"]},
        format="json",
    )
    assert kept.status_code == 200, kept.json()


def test_a_destination_taken_off_the_list_is_refused_at_delivery(owner, settings):
    settings.SCHEDULE_DELIVERY_MAX_ATTEMPTS = 1
    run = _completed_run(owner, [{"type": "s3", "bucket": "ledgers", "prefix": "monthly/"}])
    workspace = run.schedule.workspace
    workspace.schedule_s3_destinations = ""  # the operator withdrew it after the save
    workspace.save()
    # A schedule saved before the list existed names any bucket: refused at delivery too.
    run.schedule.deliveries = [{"type": "s3", "bucket": "anyone-else", "prefix": ""}]
    run.schedule.save()
    run.schedule.workspace.refresh_from_db()
    assert not s3_destination_allowed(workspace, bucket="ledgers", prefix="monthly/")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("schedules.delivery.boto3.client", _no_client)
        outcome = schedule_run_deliver(run_id=run.run_id)
    run.refresh_from_db()
    assert outcome == RunOutcome.DELIVERY_FAILED
    assert "is not one of this workspace's S3 destinations" in run.error
    assert "nothing was written" in run.error


def _no_client(*args, **kwargs):
    raise AssertionError("no S3 client may be made for a refused destination")


def test_a_name_with_a_line_break_is_refused_and_an_old_one_still_delivers(owner, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    run = _completed_run(owner, [{"type": "email", "to": ["a@example.com"]}])
    with pytest.raises(ScheduleInvalid) as caught:
        services.schedule_update(schedule=run.schedule, fields={"name": "Q1\nBcc: x@evil.test"})
    assert caught.value.details["field"] == "name"
    # Saved before the check: the subject is made one line, the delivery goes out.
    Schedule.objects.filter(pk=run.schedule_id).update(name="Q1\r\nBcc: x@evil.test")
    assert schedule_run_deliver(run_id=run.run_id) == RunOutcome.DELIVERED
    (message,) = mail.outbox
    assert message.subject == "Scheduled report “Q1 Bcc: x@evil.test”"
    assert message.to == ["a@example.com"]
    assert not message.bcc


@pytest.mark.django_db(transaction=True)
def test_deliveries_are_sent_outside_the_runs_lock_and_never_twice(owner, settings, monkeypatch):
    """Issue 42, Low: the sends used to run inside the transaction holding the run's row
    lock. Now the lock only claims and records; a second worker meanwhile finds it busy."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    run = _completed_run(owner, [{"type": "email", "to": ["a@example.com"]}])
    real_mail = delivery._mail
    seen: dict[str, object] = {}

    def lock_from_elsewhere() -> None:
        try:
            with transaction.atomic():
                ScheduleRun.objects.select_for_update(nowait=True).get(pk=run.pk)
            seen["locked_elsewhere"] = False
        except DatabaseError:
            seen["locked_elsewhere"] = True
        finally:
            connection.close()

    def mail_while_watching(*args, **kwargs):
        seen["in_transaction"] = connection.in_atomic_block
        other = threading.Thread(target=lock_from_elsewhere)
        other.start()
        other.join()
        seen["second_worker"] = schedule_run_deliver(run_id=run.run_id)
        real_mail(*args, **kwargs)

    monkeypatch.setattr(delivery, "_mail", mail_while_watching)
    assert schedule_run_deliver(run_id=run.run_id) == RunOutcome.DELIVERED
    assert seen == {"in_transaction": False, "locked_elsewhere": False, "second_worker": "busy"}
    assert len(mail.outbox) == 1
    run.refresh_from_db()
    assert run.delivery_claimed_at is None
    assert run.delivery_results[0]["status"] == "sent"
