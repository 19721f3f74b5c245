"""The state machine: guarded transitions, timestamps, attempts and one event each."""

from __future__ import annotations

import pytest

from jobs import transitions
from jobs.live.events import job_event_payload
from jobs.models import JobStatus
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db


def test_claim_moves_queued_to_processing_once():
    job = PdfJobFactory()
    first = transitions.job_claim(job_id=job.job_id, worker="w1")
    second = transitions.job_claim(job_id=job.job_id, worker="w2")
    assert first is not None
    assert first.status == JobStatus.PROCESSING
    assert first.attempts == 1
    assert first.started_at is not None
    assert first.worker == "w1"
    assert second is None


def test_every_transition_bumps_the_event_sequence():
    job = PdfJobFactory()
    claimed = transitions.job_claim(job_id=job.job_id, worker="w")
    progressed = transitions.job_progress(job_id=job.job_id, stage="laying_out", progress=50)
    done = transitions.job_complete(
        job_id=job.job_id, pdf_file="x.pdf", page_count=2, size_bytes=10, warnings=[]
    )
    assert [claimed.event_seq, progressed.event_seq, done.event_seq] == [1, 2, 3]
    assert done.status == JobStatus.COMPLETED
    assert done.progress == 100
    assert done.completed_at is not None


def test_progress_never_goes_backwards():
    job = PdfJobFactory()
    transitions.job_claim(job_id=job.job_id, worker="w")
    transitions.job_progress(job_id=job.job_id, stage="laying_out", progress=50)
    assert transitions.job_progress(job_id=job.job_id, stage="rendering", progress=20) is None
    job.refresh_from_db()
    assert (job.progress, job.stage) == (50, "laying_out")


@pytest.mark.parametrize(
    ("status", "allowed"),
    [
        (JobStatus.QUEUED, False),
        (JobStatus.PROCESSING, True),
        (JobStatus.COMPLETED, False),
        (JobStatus.FAILED, False),
        (JobStatus.CANCELLED, False),
    ],
)
def test_complete_only_from_processing(status, allowed):
    job = PdfJobFactory(status=status)
    result = transitions.job_complete(
        job_id=job.job_id, pdf_file="a.pdf", page_count=1, size_bytes=1, warnings=[]
    )
    assert (result is not None) is allowed


def test_cancel_from_queued_and_processing_but_not_after_the_end():
    queued, processing, completed = (
        PdfJobFactory(status=s)
        for s in (JobStatus.QUEUED, JobStatus.PROCESSING, JobStatus.COMPLETED)
    )
    assert transitions.job_mark_cancelled(job_id=queued.job_id).status == JobStatus.CANCELLED
    assert transitions.job_mark_cancelled(job_id=processing.job_id).status == JobStatus.CANCELLED
    assert transitions.job_mark_cancelled(job_id=completed.job_id) is None


def test_redrive_only_from_failed_and_clears_the_error():
    job = PdfJobFactory(status=JobStatus.FAILED, error="boom", error_code="x")
    redriven = transitions.job_requeue_failed(job_id=job.job_id)
    assert redriven.status == JobStatus.QUEUED
    assert redriven.error == ""
    assert transitions.job_requeue_failed(job_id=job.job_id) is None


def test_events_are_published_after_commit_with_the_new_state(
    django_capture_on_commit_callbacks, monkeypatch
):
    published = []
    monkeypatch.setattr(
        transitions,
        "job_event_announce",
        lambda job, **_: published.append(job_event_payload(job)),
    )
    job = PdfJobFactory()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        transitions.job_claim(job_id=job.job_id, worker="w")
    assert published == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    assert [(e["status"], e["seq"], e["attempts"]) for e in published] == [("processing", 1, 1)]


def test_a_transition_reuses_the_template_its_caller_loaded(django_assert_num_queries):
    from tests.factories import ReportTemplateFactory

    template = ReportTemplateFactory()
    job = PdfJobFactory(owner=template.owner, template=template)
    claimed = transitions.job_claim(job_id=job.job_id, worker="w")
    assert claimed.template.name == template.name  # the caller's copy has it loaded
    with django_assert_num_queries(1):  # the UPDATE ... RETURNING, no template read
        progressed = transitions.job_progress(
            job_id=job.job_id, stage="laying_out", progress=50, like=claimed
        )
        assert progressed.template.name == template.name
