"""Per-tenant quota on jobs queued or processing (PDF_MAX_JOBS_IN_FLIGHT)."""

from __future__ import annotations

import pytest

from jobs import services
from jobs.models import JobStatus, PdfJob
from jobs.quotas import QuotaExceeded
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
BODY = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}}


def test_submits_past_the_limit_are_429_naming_it(api, user, settings):
    settings.PDF_MAX_JOBS_IN_FLIGHT = 2
    settings.PDF_QUOTA_RETRY_AFTER_SECONDS = 7
    assert [
        api.post("/api/v1/generate-pdf-async", BODY, format="json").status_code for _ in range(2)
    ] == [202, 202]
    refused = api.post("/api/v1/generate-pdf-async", BODY, format="json")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "7"
    body = refused.json()
    assert (body["code"], body["limit"], body["limit_value"]) == (
        "quota_exceeded",
        "PDF_MAX_JOBS_IN_FLIGHT",
        2,
    )
    assert "2 jobs queued or processing" in body["error"]
    assert PdfJob.objects.filter(owner=user).count() == 2


def test_finished_jobs_free_their_slot_and_other_tenants_are_unaffected(user, settings):
    settings.PDF_MAX_JOBS_IN_FLIGHT = 1
    first, _ = services.job_create(owner=user, **BODY)
    with pytest.raises(QuotaExceeded):
        services.job_create(owner=user, **BODY)
    services.job_create(owner=UserFactory(), **BODY)  # another tenant's own quota
    PdfJob.objects.filter(pk=first.pk).update(status=JobStatus.COMPLETED)
    services.job_create(owner=user, **BODY)


def test_an_idempotent_replay_does_not_need_a_slot(user, settings):
    settings.PDF_MAX_JOBS_IN_FLIGHT = 1
    job, created = services.job_create(owner=user, idempotency_key="k", **BODY)
    again, created_again = services.job_create(owner=user, idempotency_key="k", **BODY)
    assert (again.pk, created, created_again) == (job.pk, True, False)


def test_a_cancelled_job_still_rendering_holds_its_slot_until_the_worker_lets_go(user, settings):
    from datetime import timedelta

    from django.utils import timezone

    from jobs.worker.heartbeat import Heartbeat

    settings.PDF_MAX_JOBS_IN_FLIGHT = 1
    job, _ = services.job_create(owner=user, **BODY)
    PdfJob.objects.filter(pk=job.pk).update(
        status=JobStatus.PROCESSING, worker="w:1", heartbeat_at=timezone.now()
    )
    services.job_cancel(job=job)
    # Cancelled, but its worker is still rendering: the tenant has no free slot.
    with pytest.raises(QuotaExceeded):
        services.job_create(owner=user, **BODY)
    Heartbeat(job_id=job.job_id, worker="w:1").release()  # the render stopped
    services.job_create(owner=user, **BODY)
    # A worker killed mid-render never lets go: its stale heartbeat stops counting.
    stale = timezone.now() - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS + 1)
    PdfJob.objects.filter(owner=user).update(status=JobStatus.CANCELLED, heartbeat_at=stale)
    services.job_create(owner=user, **BODY)


def test_cancelling_a_queued_job_frees_its_slot_at_once(user, settings):
    from django.utils import timezone

    settings.PDF_MAX_JOBS_IN_FLIGHT = 1
    # Queued again after a transient error: an earlier attempt's heartbeat is still fresh.
    job, _ = services.job_create(owner=user, **BODY)
    PdfJob.objects.filter(pk=job.pk).update(worker="w:1", heartbeat_at=timezone.now())
    services.job_cancel(job=job)
    job.refresh_from_db()
    assert job.heartbeat_at is None
    services.job_create(owner=user, **BODY)


def test_a_tenants_callback_backlog_is_capped_at_submit(user, settings):
    from accounts.services import api_key_create

    settings.CALLBACK_MAX_OUTSTANDING_PER_TENANT = 2
    hook = {"callback_url": "http://127.0.0.1:9/hook", "api_key": api_key_create(user=user)[0]}
    for _ in range(2):  # finished, their callbacks not delivered yet
        job, _ = services.job_create(owner=user, **hook, **BODY)
        services.job_cancel(job=job)
    with pytest.raises(QuotaExceeded) as refused:
        services.job_create(owner=user, **hook, **BODY)
    assert refused.value.details["limit"] == "CALLBACK_MAX_OUTSTANDING_PER_TENANT"
    services.job_create(owner=user, **BODY)  # without a callback: nothing to deliver
    other = UserFactory()
    services.job_create(
        owner=other,
        callback_url=hook["callback_url"],
        api_key=api_key_create(user=other)[0],
        **BODY,
    )  # another tenant's backlog is its own
    # A delivered (or given-up) callback is no longer outstanding.
    PdfJob.objects.filter(owner=user, status=JobStatus.CANCELLED).update(
        callback_attempts=settings.CALLBACK_MAX_ATTEMPTS
    )
    services.job_create(owner=user, **hook, **BODY)


@pytest.mark.django_db(transaction=True)
def test_a_submit_waiting_on_the_tenants_lock_counts_the_job_its_holder_committed(settings):
    """The slot's lock and count are two statements on purpose: the second submit waits on
    the first one's lock and must then count the job the first committed (a count read in
    the same statement as the lock would miss it, and overshoot the limit)."""
    import threading

    from django.db import connection, transaction

    from jobs.quotas import job_slot_reserve
    from tests.factories import PdfJobFactory

    if not connection.features.has_select_for_update:
        pytest.skip("SQLite serialises writers: no row lock to wait on")
    settings.PDF_MAX_JOBS_IN_FLIGHT = 1
    owner = UserFactory()
    reserved, release = threading.Event(), threading.Event()
    outcome: list[str] = []

    def first() -> None:
        try:
            with transaction.atomic():
                job_slot_reserve(owner=owner)
                PdfJobFactory(owner=owner)
                reserved.set()
                release.wait(timeout=30)  # commits only once the second one is waiting
        finally:
            connection.close()

    def second() -> None:
        try:
            with transaction.atomic():
                job_slot_reserve(owner=owner)
                outcome.append("reserved")
        except QuotaExceeded:
            outcome.append("429")
        finally:
            connection.close()

    holder = threading.Thread(target=first)
    holder.start()
    assert reserved.wait(timeout=30)
    waiter = threading.Thread(target=second)
    waiter.start()
    waiter.join(timeout=1)
    assert waiter.is_alive()  # held up by the first submit's row lock
    release.set()
    holder.join(timeout=30)
    waiter.join(timeout=30)
    assert outcome == ["429"]
    assert PdfJob.objects.filter(owner=owner).count() == 1
