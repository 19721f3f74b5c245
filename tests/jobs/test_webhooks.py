"""Signed webhooks (Standard Webhooks) against a real HTTP receiver on loopback, verified
with the `standardwebhooks` library the way an integrator's receiver does."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.contrib.admin.sites import site
from django.utils import timezone
from rest_framework.test import APIClient
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from accounts.services import api_key_create, webhook_secret_rotate
from jobs import callbacks, services
from jobs.models import JobStatus, PdfJob, WebhookAttempt, WebhookDelivery
from rendering.errors import ApplicationError
from tests.factories import PdfJobFactory, UserFactory
from tests.http_receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def hook() -> Iterator[Receiver]:
    receiver = Receiver()
    yield receiver
    receiver.server.shutdown()


@pytest.fixture
def key(user):
    return api_key_create(user=user, name="hooks")[0]


def _headers(received: tuple[dict, dict]) -> dict[str, str]:
    return {name.lower(): value for name, value in received[0].items()}


def _job(key, url: str, status: str = JobStatus.COMPLETED) -> PdfJob:
    return PdfJobFactory(
        owner=key.user, api_key=key, status=status, callback_url=url, pdf_file="x.pdf"
    )


def test_a_webhook_verifies_with_the_keys_secret_and_not_another(hook, key):
    assert key.webhook_secret.startswith("whsec_")
    job = _job(key, hook.url)
    assert callbacks.callback_deliver(job_id=job.job_id) is True
    headers = _headers(hook.received[0])
    body = Webhook(key.webhook_secret).verify(hook.raw[0], headers)
    assert body["type"] == "job.completed"
    assert body["data"]["job_id"] == str(job.job_id)
    assert headers["webhook-id"].startswith("msg_")
    assert headers["webhook-signature"].startswith("v1,")
    other = api_key_create(user=key.user, name="other")[0]
    with pytest.raises(WebhookVerificationError):
        Webhook(other.webhook_secret).verify(hook.raw[0], headers)
    tampered = hook.raw[0].replace(b"completed", b"cancelled", 1)
    with pytest.raises(WebhookVerificationError):
        Webhook(key.webhook_secret).verify(tampered, headers)


def test_retries_keep_the_webhook_id_and_body_and_every_attempt_is_kept(key, settings):
    hook = Receiver([503])
    try:
        job = _job(key, hook.url, JobStatus.FAILED)
        with pytest.raises(callbacks.CallbackError, match="HTTP 503"):
            callbacks.callback_deliver(job_id=job.job_id)
        assert callbacks.callback_deliver(job_id=job.job_id) is True
    finally:
        hook.server.shutdown()
    first, second = (_headers(r) for r in hook.received)
    assert first["webhook-id"] == second["webhook-id"]
    assert hook.raw[0] == hook.raw[1]
    for raw, headers in zip(hook.raw, (first, second), strict=True):
        assert Webhook(key.webhook_secret).verify(raw, headers)["type"] == "job.failed"
    delivery = WebhookDelivery.objects.get(job=job)
    assert delivery.message_id == first["webhook-id"]
    assert delivery.delivered_at is not None
    attempts = list(delivery.attempts.values_list("status_code", "error"))
    assert attempts == [(503, "HTTP 503"), (200, "")]


def test_during_a_rotation_both_secrets_sign_then_only_the_new(hook, key):
    old = key.webhook_secret
    new = webhook_secret_rotate(key=key, grace_seconds=3600)
    assert new != old
    job = _job(key, hook.url, JobStatus.CANCELLED)
    callbacks.callback_deliver(job_id=job.job_id)
    headers = _headers(hook.received[0])
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in (old, new):
        assert Webhook(secret).verify(hook.raw[0], headers)["type"] == "job.cancelled"

    key.refresh_from_db()
    key.webhook_secret_previous_until = timezone.now() - timedelta(seconds=1)
    key.save()
    later = _job(key, hook.url)
    callbacks.callback_deliver(job_id=later.job_id)
    headers = _headers(hook.received[1])
    assert len(headers["webhook-signature"].split(" ")) == 1
    Webhook(new).verify(hook.raw[1], headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(old).verify(hook.raw[1], headers)


def test_production_refuses_plain_http_callbacks(settings, user):
    settings.CALLBACK_REQUIRE_HTTPS = True
    with pytest.raises(ApplicationError, match="must be an https URL"):
        services.job_create(
            owner=user, html_template="<p/>", data={}, callback_url="http://example.com/hook"
        )
    assert not PdfJob.objects.exists()


def test_a_keys_default_callback_url_is_used_when_a_submit_names_none(key, hook):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=key.user)[1])  # a key without one
    plain = client.post("/api/v1/generate-pdf-async", {"html_template": "<p/>"}, format="json")
    assert PdfJob.objects.get(job_id=plain.json()["job_id"]).callback_url == ""

    with_default, raw = api_key_create(user=key.user, name="with default")
    with_default.default_callback_url = hook.url
    with_default.save()
    client.credentials(HTTP_X_API_KEY=raw)
    answer = client.post("/api/v1/generate-pdf-async", {"html_template": "<p/>"}, format="json")
    job = PdfJob.objects.get(job_id=answer.json()["job_id"])
    assert (job.callback_url, job.api_key_id) == (hook.url, with_default.pk)
    named = client.post(
        "/api/v1/generate-pdf-async",
        {"html_template": "<p/>", "callback_url": "https://example.com/mine"},
        format="json",
    )
    assert PdfJob.objects.get(job_id=named.json()["job_id"]).callback_url == (
        "https://example.com/mine"
    )


def test_deliveries_endpoint_shows_attempts_and_hides_other_callers_jobs(hook, key):
    job = _job(key, hook.url)
    callbacks.callback_deliver(job_id=job.job_id)
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=key.user)[1])
    answer = client.get(f"/api/v1/jobs/{job.job_id}/deliveries")
    assert answer.status_code == 200
    [delivery] = answer.json()
    assert delivery["webhook_id"] == _headers(hook.received[0])["webhook-id"]
    assert delivery["event_type"] == "job.completed"
    assert delivery["delivered_at"] is not None
    assert [a["status_code"] for a in delivery["attempts"]] == [200]
    stranger = APIClient()
    stranger.credentials(HTTP_X_API_KEY=api_key_create(user=UserFactory())[1])
    assert stranger.get(f"/api/v1/jobs/{job.job_id}/deliveries").status_code == 404


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_admin_resends_a_failed_delivery_with_the_same_id(live_stack, key, admin_client, settings):
    settings.CALLBACK_MAX_ATTEMPTS = 1
    hook = Receiver([500])
    try:
        job = _job(key, hook.url)
        assert callbacks.callback_deliver(job_id=job.job_id) is False  # given up
        delivery = WebhookDelivery.objects.get(job=job)
        page = admin_client.get(f"/admin/jobs/webhookdelivery/{delivery.pk}/change/")
        assert page.status_code == 200
        assert b"HTTP 500" in page.content  # the failed attempt, shown inline
        answer = admin_client.post(
            "/admin/jobs/webhookdelivery/",
            {"action": "resend", "_selected_action": [delivery.pk]},
            follow=True,
        )
        assert b"Resending 1 delivery" in answer.content

        # The live stack's worker sends it from the callbacks queue, not the admin, and
        # records the receiver's answer after it: wait for that record, not the request.
        def answered() -> bool:
            return WebhookAttempt.objects.filter(delivery=delivery, status_code=200).exists()

        deadline = time.monotonic() + 30
        while not answered() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        hook.server.shutdown()
    assert len(hook.received) == 2
    assert _headers(hook.received[0])["webhook-id"] == _headers(hook.received[1])["webhook-id"]
    Webhook(key.webhook_secret).verify(hook.raw[1], _headers(hook.received[1]))
    attempts = WebhookAttempt.objects.filter(delivery=delivery).order_by("attempted_at")
    assert list(attempts.values_list("status_code", flat=True)) == [500, 200]
    job.refresh_from_db()
    assert job.callback_sent_at is not None
    assert WebhookDelivery in site._registry
