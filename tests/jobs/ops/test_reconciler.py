"""The reconciler and the dead-letter re-drive, against the real broker queue."""

from __future__ import annotations

import os
import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from config.celery_app import app
from jobs import dead_letters
from jobs.models import DeadLetter, JobStatus, PdfJob
from jobs.ops import reconciler
from jobs.ops.broker import job_ids_in_broker
from jobs.worker.liveness import attempt_identity
from tests.factories import PdfJobFactory


@pytest.fixture
def empty_queue():
    app.control.purge()
    yield
    app.control.purge()


def _age(job: PdfJob, seconds: int, **fields) -> None:
    then = timezone.now() - timedelta(seconds=seconds)
    PdfJob.objects.filter(pk=job.pk).update(updated_at=then, **fields)


@pytest.mark.django_db
@pytest.mark.usefixtures("empty_queue")
def test_lost_queued_job_is_sent_again_and_then_counts_as_in_flight(settings):
    lost = PdfJobFactory()
    fresh = PdfJobFactory()
    _age(lost, settings.RECONCILE_QUEUED_AFTER_SECONDS + 5)
    assert str(lost.job_id) not in job_ids_in_broker()
    assert reconciler.jobs_reconcile() == {"queued": 1, "processing": 0, "callbacks": 0}
    assert job_ids_in_broker() >= {str(lost.job_id)}
    assert str(fresh.job_id) not in job_ids_in_broker()
    _age(
        lost,
        settings.RECONCILE_QUEUED_AFTER_SECONDS + 5,
        enqueued_at=timezone.now() - timedelta(hours=1),
    )
    assert reconciler.jobs_reconcile()["queued"] == 0  # its message is still waiting


@pytest.mark.django_db
@pytest.mark.usefixtures("empty_queue")
def test_processing_job_of_a_dead_worker_is_sent_again(settings):
    gone = attempt_identity().replace(f":{os.getpid()}:", ":999999999:")  # no such pid here
    dead = PdfJobFactory(status=JobStatus.PROCESSING, worker=gone, heartbeat_at=timezone.now())
    alive = PdfJobFactory(
        status=JobStatus.PROCESSING, worker=attempt_identity(), heartbeat_at=timezone.now()
    )
    quiet = PdfJobFactory(
        status=JobStatus.PROCESSING,
        worker="other-host:7",
        heartbeat_at=timezone.now() - timedelta(seconds=settings.PDF_HARD_TIME_LIMIT + 3600),
    )
    assert reconciler.jobs_reconcile() == {"queued": 0, "processing": 2, "callbacks": 0}
    assert job_ids_in_broker() == {str(dead.job_id), str(quiet.job_id)}
    assert str(alive.job_id) not in job_ids_in_broker()


def _dead_letter(**fields) -> DeadLetter:
    job = PdfJobFactory(status=JobStatus.FAILED, error="x")
    return DeadLetter.objects.create(job=job, error="x", **fields)


@pytest.mark.django_db
def test_only_young_transient_dead_letters_under_the_retry_cap_are_redriven(
    sent_tasks, settings, django_capture_on_commit_callbacks
):
    due = _dead_letter()
    permanent = _dead_letter(permanent=True)
    capped = _dead_letter(retry_count=settings.DLQ_MAX_RETRIES)
    old = _dead_letter()
    DeadLetter.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(seconds=settings.DLQ_MAX_AGE_SECONDS + 60)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert dead_letters.dead_letters_redrive_due() == 1
    assert sent_tasks.ids("job_enqueue") == [due.job.job_id]
    for letter, status in (
        (due, JobStatus.QUEUED),
        (permanent, JobStatus.FAILED),
        (capped, JobStatus.FAILED),
        (old, JobStatus.FAILED),
    ):
        letter.job.refresh_from_db()
        assert letter.job.status == status
    due.refresh_from_db()
    assert due.retry_count == 1


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_redrives_enqueue_each_job_once(sent_tasks):
    from django.db import connection

    letters = [_dead_letter() for _ in range(20)]
    start = threading.Barrier(2)
    counts = []

    def redrive():
        start.wait()
        try:
            counts.append(dead_letters.dead_letters_redrive_due())
        finally:
            connection.close()

    threads = [threading.Thread(target=redrive) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    sent = sorted(map(str, sent_tasks.ids("job_enqueue")))
    assert sent == sorted(str(letter.job.job_id) for letter in letters)
    assert sum(counts) == 20
    assert set(DeadLetter.objects.values_list("retry_count", flat=True)) == {1}


@pytest.mark.django_db
@pytest.mark.usefixtures("empty_queue")
def test_a_job_of_a_host_gone_from_presence_is_sent_again_within_the_heartbeat_window(
    settings,
):
    from jobs.worker.presence import presence_leave, presence_stamp

    presence_stamp(hostname="celery@alive-host", info={}, instance="a1" * 6)
    silent = timezone.now() - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS + 10)
    try:
        gone = PdfJobFactory(
            status=JobStatus.PROCESSING,
            worker=f"gone-host:7:0badf00d-{'d0' * 6}",
            heartbeat_at=silent,
            enqueued_at=silent,
        )
        present = PdfJobFactory(
            status=JobStatus.PROCESSING,
            worker=f"alive-host:7:0badf00d-{'a1' * 6}",
            heartbeat_at=silent,  # a long C call may hold its heartbeat: the hard limit rules
            enqueued_at=silent,
        )
        assert reconciler.jobs_reconcile()["processing"] == 1
        assert job_ids_in_broker() == {str(gone.job_id)}
        assert str(present.job_id) not in job_ids_in_broker()
    finally:
        presence_leave(hostname="celery@alive-host", instance="a1" * 6)
