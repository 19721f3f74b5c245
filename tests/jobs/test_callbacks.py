"""Completion callbacks against a real HTTP server on loopback."""

from __future__ import annotations

import sys
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

    def make(statuses: list[int] | None = None, *, delay: float = 0) -> Receiver:
        made.append(Receiver(statuses, delay=delay))
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
    django_capture_on_commit_callbacks, sent_tasks
):
    from jobs import transitions

    with_hook = PdfJobFactory(callback_url="http://127.0.0.1:9/hook")
    without = PdfJobFactory()
    with django_capture_on_commit_callbacks(execute=True):
        transitions.job_mark_cancelled(job_id=with_hook.job_id)
        transitions.job_mark_cancelled(job_id=without.job_id)
    assert [str(j) for j in sent_tasks.ids("callback_enqueue")] == [str(with_hook.job_id)]


def test_a_tenant_past_its_share_of_delivery_threads_is_deferred_without_an_attempt(
    receiver, settings
):
    from accounts.tenancy import tenant_of_job
    from core.leases import lease_release, lease_take

    settings.CALLBACK_MAX_CONCURRENT_PER_TENANT = 1
    hook = receiver()
    job = PdfJobFactory(status=JobStatus.COMPLETED, callback_url=hook.url, pdf_file="x.pdf")
    name = f"callbacks:tenant:{tenant_of_job(job)}"
    busy = lease_take(name=name, limit=1, seconds=30)  # another delivery of the tenant runs
    with pytest.raises(callbacks.CallbackDeferred) as deferred:
        callbacks.callback_deliver(job_id=job.job_id)
    assert 0 < deferred.value.seconds <= settings.CALLBACK_TIMEOUT_SECONDS
    job.refresh_from_db()
    assert (job.callback_attempts, hook.received) == (0, [])
    lease_release(name=name, token=busy)
    assert callbacks.callback_deliver(job_id=job.job_id) is True
    assert len(hook.received) == 1


def test_a_slow_receiver_gets_its_tenant_one_thread_and_a_longer_push_back(receiver, settings):
    import time

    from accounts.tenancy import tenant_of_job
    from core.leases import lease_count

    settings.CALLBACK_MAX_CONCURRENT_PER_TENANT = 4
    settings.CALLBACK_SLOW_SECONDS = 1
    settings.CALLBACK_TIMEOUT_SECONDS = 2
    settings.CALLBACK_CONNECT_TIMEOUT_SECONDS = 1
    tarpit = receiver(delay=10)
    job = PdfJobFactory(status=JobStatus.FAILED, callback_url=tarpit.url)
    started = time.monotonic()
    with pytest.raises(callbacks.CallbackError, match="no complete answer within 2 s"):
        callbacks.callback_deliver(job_id=job.job_id)
    assert time.monotonic() - started < 3  # the tarpit held the thread for the deadline only
    tenant = tenant_of_job(job)
    assert lease_count(name=f"callbacks-slow:tenant:{tenant}") == 1
    assert callbacks._tenant_share(tenant) == 1
    assert callbacks._deferral(tenant) > settings.CALLBACK_TIMEOUT_SECONDS * 1.5 - 0.01


_LOOKUPS: list[tuple] = []
_RECORDING: list[bool] = []
# The callback URLs' hosts below: a submit's own connections (a first one to Redis for its
# counters, to PostgreSQL) are not what the test is about. Not `localhost`, which a
# machine's REDIS_URL or DATABASE_URL may name.
_CALLBACK_HOSTS = {"reports-receiver.example.invalid", "10.0.0.7", "fd00::1"}


def _audit(event: str, args: tuple) -> None:
    if not _RECORDING:
        return
    if event in ("socket.getaddrinfo", "socket.gethostbyname"):
        host = args[0]
    elif event == "socket.connect" and isinstance(args[1], tuple):
        host = args[1][0]
    else:
        return
    if isinstance(host, bytes):
        host = host.decode()
    if host in _CALLBACK_HOSTS:
        _LOOKUPS.append((event, args))


sys.addaudithook(_audit)  # for the life of the process; it records only while asked to


def test_a_submit_does_not_resolve_the_callback_host(settings, user):
    from accounts.services import api_key_create

    """The web request checks the URL's syntax (and IP literals); the name is resolved by
    the callbacks worker, so a submit never waits on DNS nor learns which names exist."""
    settings.CALLBACK_ALLOW_PRIVATE_NETWORKS = False
    _LOOKUPS.clear()
    _RECORDING.append(True)
    try:
        job, _ = services.job_create(
            owner=user,
            html_template="<p/>",
            data={},
            callback_url="https://reports-receiver.example.invalid/hook",
            api_key=api_key_create(user=user)[0],
        )
        for url in ("http://10.0.0.7/x", "http://localhost/x", "http://[fd00::1]/x"):
            with pytest.raises(ApplicationError, match="not a public address"):
                services.job_create(owner=user, html_template="<p/>", data={}, callback_url=url)
    finally:
        _RECORDING.clear()
    assert _LOOKUPS == []
    assert job.callback_url.endswith("example.invalid/hook")
    # The worker does resolve it, and a name that does not resolve is refused there.
    assert "does not resolve" in callbacks.callback_url_check(job.callback_url)


def test_a_browser_session_submit_cannot_ask_for_unsigned_webhooks(client, user):
    """Webhooks are signed with the submitting key's secret; a session call has none."""
    client.force_login(user)
    answer = client.post(
        "/api/v1/generate-pdf-async",
        {"html_template": "<p/>", "callback_url": "https://receiver.example.com/hook"},
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "callback_needs_api_key"
    assert not PdfJob.objects.exists()
