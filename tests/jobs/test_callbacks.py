"""Completion callbacks against a real HTTP server on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jobs import callbacks, services
from jobs.models import JobStatus, PdfJob
from rendering.errors import ApplicationError
from tests.factories import PdfJobFactory
from tests.http_receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made: list[Receiver] = []

    def make(statuses: list[int] | None = None) -> Receiver:
        made.append(Receiver(statuses))
        return made[-1]

    yield make
    for r in made:
        r.server.shutdown()


def test_final_state_is_posted_once_with_an_idempotency_key(receiver):
    hook = receiver()
    job = PdfJobFactory(status=JobStatus.COMPLETED, callback_url=hook.url, pdf_file="x.pdf")
    assert callbacks.callback_deliver(job_id=job.job_id) is True
    assert callbacks.callback_deliver(job_id=job.job_id) is True  # already sent: no 2nd POST
    assert len(hook.received) == 1
    headers, body = hook.received[0]
    assert headers["Idempotency-Key"] == f"{job.job_id}:completed"
    assert body["type"] == "job.completed"
    assert (body["data"]["job_id"], body["data"]["status"]) == (str(job.job_id), "completed")
    assert body["data"]["pdf_url"].startswith("http://127.0.0.1:8000/api/v1/jobs/")
    job.refresh_from_db()
    assert job.callback_sent_at is not None
    assert job.callback_attempts == 1


def test_a_failing_receiver_is_retried_then_given_up(receiver, settings):
    settings.CALLBACK_MAX_ATTEMPTS = 2
    hook = receiver([500, 503])
    job = PdfJobFactory(status=JobStatus.FAILED, callback_url=hook.url)
    with pytest.raises(callbacks.CallbackError, match="HTTP 500"):
        callbacks.callback_deliver(job_id=job.job_id)
    assert callbacks.callback_deliver(job_id=job.job_id) is False
    job.refresh_from_db()
    assert (job.callback_attempts, job.callback_error, job.callback_sent_at) == (
        2,
        "HTTP 503",
        None,
    )
    assert callbacks.callback_deliver(job_id=job.job_id) is True  # nothing more to try
    assert len(hook.received) == 2


def test_unfinished_jobs_send_nothing(receiver):
    hook = receiver()
    job = PdfJobFactory(status=JobStatus.PROCESSING, callback_url=hook.url)
    assert callbacks.callback_deliver(job_id=job.job_id) is True
    assert hook.received == []


def test_private_callback_urls_are_refused_unless_allowed(settings, user):
    settings.CALLBACK_ALLOW_PRIVATE_NETWORKS = False
    for url in (
        "http://127.0.0.1:9/x",
        "http://169.254.169.254/latest",
        "http://[::1]/x",
        "ftp://example.com/x",
    ):
        with pytest.raises(ApplicationError, match="callback_url"):
            services.job_create(owner=user, html_template="<p/>", data={}, callback_url=url)
    assert not PdfJob.objects.exists()


def test_reaching_a_final_status_queues_the_callback(
    django_capture_on_commit_callbacks, monkeypatch
):
    from jobs import dispatch, transitions

    queued = []
    monkeypatch.setattr(dispatch, "callback_enqueue", lambda *, job_id: queued.append(job_id))
    with_hook = PdfJobFactory(callback_url="http://127.0.0.1:9/hook")
    without = PdfJobFactory()
    with django_capture_on_commit_callbacks(execute=True):
        transitions.job_mark_cancelled(job_id=with_hook.job_id)
        transitions.job_mark_cancelled(job_id=without.job_id)
    assert [str(j) for j in queued] == [str(with_hook.job_id)]
