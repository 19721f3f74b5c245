"""Schedules are no mail relay (issue 42, Medium 8): delivery mail goes to members'
addresses only, checked at save and again at delivery, and a workspace's schedules mail at
most SCHEDULE_MAILS_PER_DAY recipients in 24 hours (run-now a 429, a delivery a recorded
failure)."""

from __future__ import annotations

import pytest
from django.core import mail
from rest_framework.test import APIClient

from accounts.services import api_key_create
from schedules.delivery import DeliveriesPending, schedule_run_deliver
from schedules.models import RunOutcome, ScheduleRun
from tests.schedules.test_delivery import _completed_run
from tests.schedules.test_delivery import owner as owner  # the fixture
from workspaces.models import Membership

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sent_tasks")]


@pytest.fixture(autouse=True)
def _locmem(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def _api(owner) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=owner, name="k", role="owner")[1])
    return client


def _body(*to: str) -> dict:
    return {"template": "ledger", "cron": "0 6 1 * *", "deliveries": [{"type": "email", "to": to}]}


def test_a_schedule_cannot_mail_an_address_outside_the_workspace(owner, settings):
    api = _api(owner)
    answer = api.post(
        "/api/v1/schedules", _body("A@Example.com", "victim@elsewhere.test"), format="json"
    )
    assert answer.status_code == 400
    assert answer.json()["field"] == "deliveries[0].to[1]"
    assert "victim@elsewhere.test is not the email of a member" in answer.json()["error"]
    # Members' addresses (without case) are fine; an operator may allow any address.
    assert api.post("/api/v1/schedules", _body("A@Example.com"), format="json").status_code == 201
    settings.SCHEDULE_MAIL_ANY_RECIPIENT = True
    answer = api.post("/api/v1/schedules", _body("victim@elsewhere.test"), format="json")
    assert answer.status_code == 201


def test_a_recipient_who_left_gets_no_mail_and_the_run_records_why(owner, settings):
    run = _completed_run(owner, [{"type": "email", "to": ["a@example.com", "b@example.com"]}])
    Membership.objects.filter(user__email="b@example.com").delete()
    with pytest.raises(DeliveriesPending):
        schedule_run_deliver(run_id=run.run_id)
    assert mail.outbox == []
    run.refresh_from_db()
    (result,) = run.delivery_results
    assert result["status"] == "failed"
    assert "b@example.com is not the email of a member" in result["error"]


def test_mail_past_the_daily_limit_is_a_429_at_run_now_and_a_failure_at_delivery(owner, settings):
    settings.SCHEDULE_MAILS_PER_DAY = 3
    settings.SCHEDULE_DELIVERY_MAX_ATTEMPTS = 1
    first = _completed_run(owner, [{"type": "email", "to": ["a@example.com", "b@example.com"]}])
    second = _completed_run(owner, [{"type": "email", "to": ["a@example.com", "b@example.com"]}])
    assert schedule_run_deliver(run_id=first.run_id) == RunOutcome.DELIVERED
    assert len(mail.outbox) == 1
    # Two more recipients would be four in 24 hours: refused before anything runs...
    api = _api(owner)
    answer = api.post(f"/api/v1/schedules/{first.schedule.schedule_id}/run")
    assert answer.status_code == 429
    assert answer.json()["limit"] == "SCHEDULE_MAILS_PER_DAY"
    assert ScheduleRun.objects.filter(schedule=first.schedule).count() == 1
    # ...and a run already under way records the refusal instead of mailing.
    assert schedule_run_deliver(run_id=second.run_id) == RunOutcome.DELIVERY_FAILED
    assert len(mail.outbox) == 1
    second.refresh_from_db()
    assert "SCHEDULE_MAILS_PER_DAY=3" in second.error
    assert second.mail_recipients == 0
