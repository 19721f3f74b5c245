"""Fair dispatch: a free slot goes to the tenant running the fewest jobs."""

from __future__ import annotations

import pytest

from jobs.dispatch import RENDER_TASK
from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from jobs.worker.fairness import job_fairer_than
from tests.factories import PdfJobFactory, UserFactory

pytestmark = pytest.mark.django_db


def _burst(owner, queued: int, processing: int) -> list[PdfJob]:
    running = [
        PdfJobFactory(owner=owner, status=JobStatus.PROCESSING, worker="w:1", attempts=1)
        for _ in range(processing)
    ]
    return running + [PdfJobFactory(owner=owner) for _ in range(queued)]


def test_a_slot_taken_by_the_busy_tenants_message_runs_the_other_tenants_job(settings, published):
    alice, bob = UserFactory(), UserFactory()
    alices = _burst(alice, queued=5, processing=2)
    bobs = PdfJobFactory(owner=bob)
    taken = execution.job_start(job_id=alices[2].job_id, worker="w:2")
    assert taken.job_id == bobs.job_id
    assert taken.status == JobStatus.PROCESSING
    alices[2].refresh_from_db()
    assert alices[2].status == JobStatus.QUEUED  # still waiting, its message sent again
    assert alices[2].enqueued_at is not None
    sent = published("pdf")
    assert [(m["task"], m["args"]) for m in sent] == [(RENDER_TASK, [str(alices[2].job_id)])]


def test_the_check_and_the_claim_are_one_statement_and_a_lost_race_claims_this_job(
    monkeypatch,
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    alice, bob = UserFactory(), UserFactory()
    alices = _burst(alice, queued=2, processing=1)
    PdfJobFactory(owner=bob)
    bobs = PdfJobFactory(owner=bob)
    # No fairer job: the check rides in the claim's statement (the message's one round trip;
    # this job has an inline template, so there is no template to read).
    with CaptureQueriesContext(connection) as queries:
        taken = execution.job_start(job_id=bobs.job_id, worker="w:2")
    assert taken.job_id == bobs.job_id
    assert taken.status == JobStatus.PROCESSING
    assert len(queries) == 1, queries.captured_queries
    # The job the check picked was claimed by another slot meanwhile (here: the pick names
    # a job already processing): as when they were two statements, this slot then claims
    # its own message's job.
    from django.db.models import UUIDField
    from django.db.models.expressions import RawSQL

    key = PdfJob._meta.get_field("job_id").get_db_prep_value(taken.job_id, connection)
    monkeypatch.setattr(
        execution,
        "job_fairer_choice",
        lambda job_id: RawSQL("SELECT %s", (key,), output_field=UUIDField()),
    )
    taken = execution.job_start(job_id=alices[1].job_id, worker="w:2")
    assert taken.job_id == alices[1].job_id
    assert taken.status == JobStatus.PROCESSING


def test_no_swap_when_the_tenant_is_no_busier_or_fairness_is_off(settings):
    alice, bob = UserFactory(), UserFactory()
    first = PdfJobFactory(owner=alice)
    PdfJobFactory(owner=bob)
    assert job_fairer_than(job_id=first.job_id) is None  # alice runs nothing yet
    busy = _burst(alice, queued=1, processing=1)
    assert job_fairer_than(job_id=busy[1].job_id) is not None
    settings.PDF_FAIR_DISPATCH = False
    assert job_fairer_than(job_id=busy[1].job_id) is None


def test_the_least_busy_tenants_oldest_job_goes_first():
    alice, bob, carol = UserFactory(), UserFactory(), UserFactory()
    alices = _burst(alice, queued=1, processing=3)
    bob_old, bob_new = _burst(bob, queued=2, processing=1)[1:]
    carol_job = PdfJobFactory(owner=carol)
    assert job_fairer_than(job_id=alices[3].job_id) == carol_job.job_id  # carol runs none
    PdfJob.objects.filter(pk=carol_job.pk).update(status=JobStatus.COMPLETED)
    assert job_fairer_than(job_id=alices[3].job_id) == bob_old.job_id
    assert bob_new  # bob's newer job waits behind his older one


def test_a_job_waiting_out_a_retry_backoff_is_not_started_early():
    alice, bob = UserFactory(), UserFactory()
    alices = _burst(alice, queued=1, processing=1)
    PdfJobFactory(owner=bob, attempts=1)  # queued again after a transient error
    assert job_fairer_than(job_id=alices[1].job_id) is None


def test_a_cancelled_job_still_rendering_counts_as_busy(settings):
    from django.utils import timezone

    alice, bob = UserFactory(), UserFactory()
    PdfJobFactory(
        owner=alice, status=JobStatus.CANCELLED, worker="w:1", heartbeat_at=timezone.now()
    )
    mine = PdfJobFactory(owner=alice)
    bobs = PdfJobFactory(owner=bob)
    # Alice's worker is still busy with her cancelled job: Bob, running nothing, goes first.
    assert job_fairer_than(job_id=mine.job_id) == bobs.job_id
    PdfJob.objects.filter(owner=alice, status=JobStatus.CANCELLED).update(heartbeat_at=None)
    assert job_fairer_than(job_id=mine.job_id) is None


def test_the_busy_count_compiled_once_uses_the_heartbeat_cutoff_of_each_call(settings):
    from datetime import timedelta

    from django.utils import timezone

    alice, bob = UserFactory(), UserFactory()
    PdfJobFactory(
        owner=alice,
        status=JobStatus.CANCELLED,
        worker="w:1",
        heartbeat_at=timezone.now() - timedelta(seconds=20),
    )
    mine = PdfJobFactory(owner=alice)
    bobs = PdfJobFactory(owner=bob)
    settings.PDF_HEARTBEAT_STALE_SECONDS = 60  # a 20 s old heartbeat is fresh
    assert job_fairer_than(job_id=mine.job_id) == bobs.job_id
    settings.PDF_HEARTBEAT_STALE_SECONDS = 10  # now stale: alice's worker let go
    assert job_fairer_than(job_id=mine.job_id) is None
