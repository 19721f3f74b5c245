"""The event a follower receives is the job's public state exactly as the status endpoint's
serializer gives it (jobs.live.events builds it by hand, since every transition sends one)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.error_codes import JobErrorCode
from jobs.live.events import job_event_payload
from jobs.models import JobStatus, PdfJob
from jobs.state import JobStateSerializer
from rendering.error_codes import ErrorCode
from rendering.office import OFFICE_ENGINE
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = pytest.mark.django_db

NOW = timezone.now()

STATES = {
    "queued": {},
    "processing": {
        "status": JobStatus.PROCESSING,
        "progress": 42,
        "stage": "laying_out",
        "attempts": 2,
        "earlier_attempts": 1,
        "started_at": NOW,
    },
    "completed": {
        "status": JobStatus.COMPLETED,
        "progress": 100,
        "stage": "done",
        "attempts": 1,
        "started_at": NOW,
        "completed_at": NOW + timedelta(seconds=1),
        "pdf_file": "x.pdf",
        "page_count": 3,
        "size_bytes": 12345,
        "warnings": ["a font was missing", "an image was skipped"],
        "event_seq": 4,
        "compliance": {"profile": "PDF/A-3b", "checks": [], "signature": None},
    },
    "failed, retryable": {
        "status": JobStatus.FAILED,
        "stage": "failed",
        "error": "The worker died.",
        "error_code": JobErrorCode.WORKER_LOST,
        "completed_at": NOW,
    },
    "failed, permanent": {
        "status": JobStatus.FAILED,
        "stage": "failed",
        "error": "Bad template.",
        "error_code": ErrorCode.TIMEOUT,
        "completed_at": NOW,
    },
    "cancelled": {"status": JobStatus.CANCELLED, "stage": "cancelled", "completed_at": NOW},
    "expired, cached, in a batch": {
        "status": JobStatus.COMPLETED,
        "expired_at": NOW,
        "cached_from": uuid.uuid4(),
        "batch_id": uuid.uuid4(),
        "options": {"filename": "report.pdf"},
    },
    "a conversion": {"engine": OFFICE_ENGINE, "html_template": "<title>Notes</title>"},
}


@pytest.mark.parametrize("fields", STATES.values(), ids=STATES.keys())
@pytest.mark.parametrize("stored_template", [False, True], ids=["inline", "stored"])
def test_the_event_is_the_serializers_state(user, fields, stored_template):
    extra = {"template": ReportTemplateFactory(owner=user)} if stored_template else {}
    job = PdfJobFactory(owner=user, **extra, **fields)
    for copy in (job, PdfJob.objects.get(pk=job.pk)):  # as created, and as read back
        assert job_event_payload(copy) == dict(JobStateSerializer(copy).data)
        assert list(job_event_payload(copy)) == list(JobStateSerializer(copy).data)
