"""Schedules end to end on real processes: a web process, a Celery worker (render, mail and
callbacks queues), on a Redis of the test's own. Run now -> the job renders ->
the mail (file backend) carries the PDF and a working link, the loopback receiver gets a
signed webhook; then beat's due task, sent twice, runs a missed tick once."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from django.utils import timezone
from pypdf import PdfReader
from standardwebhooks.webhooks import Webhook

from accounts.services import api_key_create, webhook_signing_secrets
from reports.services import template_create
from schedules.dispatch import SCHEDULES_DUE_TASK
from schedules.models import RunOutcome, RunTrigger, Schedule, ScheduleRun
from tests.chaos.conftest import wait_for
from tests.factories import UserFactory, members_with_emails
from tests.http_receiver import Receiver
from tests.mail_files import mails_in, subject_of
from workspaces.services import workspace_personal

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def _up(api: httpx.Client) -> bool:
    try:
        return api.get("/livez").status_code == 200
    except httpx.HTTPError:
        return False


def _runs(schedule_id: str, *, outcome: str, trigger: str) -> list[ScheduleRun]:
    return list(
        ScheduleRun.objects.filter(
            schedule__schedule_id=schedule_id, outcome=outcome, trigger=trigger
        ).select_related("job")
    )


def test_run_now_mails_and_posts_a_signed_webhook_and_the_due_task_runs_a_missed_tick_once(
    chaos, tmp_path
):
    web = chaos.web()
    mail = tmp_path / "mail"
    chaos.worker(
        "scheduler",
        EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
        EMAIL_FILE_PATH=str(mail),
        PUBLIC_BASE_URL=web,
    )
    owner = UserFactory(username="scheduler", email="scheduler@example.com")
    template_create(
        owner=owner,
        workspace=workspace_personal(user=owner),
        name="Monthly sales",
        slug="sales",
        html="<h1>Sales of {{month}}</h1>",
    )
    members_with_emails(workspace_personal(user=owner), "cfo@example.com")
    key, raw_key = api_key_create(user=owner, name="schedules")
    receiver = Receiver()
    try:
        with httpx.Client(base_url=web, headers={"X-API-Key": raw_key}, timeout=30) as api:
            wait_for(lambda: _up(api), timeout=30, what="the web process", chaos=chaos)
            created = api.post(
                "/api/v1/schedules",
                json={
                    "template": "sales",
                    "data": {"month": "November"},
                    "cron": "0 6 1 * *",
                    "timezone": "Europe/Berlin",
                    "deliveries": [
                        {"type": "email", "to": ["cfo@example.com"]},
                        {"type": "webhook", "url": receiver.url},
                    ],
                },
            )
            assert created.status_code == 201, created.text
            schedule_id = created.json()["schedule_id"]
            run = api.post(f"/api/v1/schedules/{schedule_id}/run").json()
            (done,) = wait_for(
                lambda: _runs(schedule_id, outcome=RunOutcome.DELIVERED, trigger="manual"),
                timeout=60,
                what="the run to be delivered",
                chaos=chaos,
            )
            assert str(done.run_id) == run["run_id"]
            listed = api.get(f"/api/v1/schedules/{schedule_id}/runs").json()["results"]
            assert listed[0]["outcome"] == "delivered"
            assert [d["status"] for d in listed[0]["deliveries"]] == ["sent", "sent"]

            (message,) = mails_in(mail, to="cfo@example.com")
            assert subject_of(message) == "Scheduled report “Monthly sales”"
            body = message.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
            link = next(line for line in body.splitlines() if "/pdf?token=" in line)
            (attachment,) = list(message.iter_attachments())
            attached = attachment.get_content()
            assert attached.startswith(b"%PDF")
            downloaded = httpx.get(link, timeout=30)
            assert downloaded.content == attached  # the link is the credential
            pdf_path = tmp_path / "report.pdf"
            pdf_path.write_bytes(attached)
            assert "Sales of November" in PdfReader(pdf_path).pages[0].extract_text()

            (headers, payload) = receiver.received[0]
            secret = webhook_signing_secrets(key=key)[0]
            assert Webhook(secret).verify(receiver.raw[0], headers) == payload
            assert payload["data"]["job_id"] == str(done.job.job_id)

            # Beat was down for three months of ticks: one run when it is back.
            Schedule.objects.filter(schedule_id=schedule_id).update(
                next_run_at=timezone.now() - timedelta(days=90)
            )
            # Beat's due task, sent twice at once (two beats in a deploy's overlap).
            for _ in range(2):
                chaos.app.send_task(SCHEDULES_DUE_TASK)
            (ticked,) = wait_for(
                lambda: _runs(schedule_id, outcome=RunOutcome.DELIVERED, trigger=RunTrigger.TICK),
                timeout=60,
                what="the missed tick's run",
                chaos=chaos,
            )
            schedule = Schedule.objects.get(schedule_id=schedule_id)
            assert schedule.next_run_at > timezone.now()
            wait_for(lambda: len(receiver.raw) == 2, timeout=10, what="the tick's webhook")
            assert ScheduleRun.objects.filter(schedule=schedule, trigger="tick").count() == 1
            assert ticked.scheduled_for < timezone.now() - timedelta(days=89)
    finally:
        receiver.server.shutdown()
