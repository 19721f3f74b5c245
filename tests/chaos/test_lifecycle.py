"""Chaos: kill, stop and starve real worker, broker and web processes; every job still ends
exactly once. Each test asserts final status, attempts, stored objects and events."""

from __future__ import annotations

import signal
import time

import httpx
import pytest
import redis

from accounts.services import api_key_create
from jobs.dispatch import task_id_for
from jobs.models import DeadLetter, JobStatus, PdfJob
from tests.chaos.conftest import (
    EventRecorder,
    kill_attempt,
    wait_for,
    wait_processing,
    wait_terminal,
)
from tests.factories import PdfJobFactory, UserFactory
from tests.processes import messages_waiting

pytestmark = [pytest.mark.e2e, pytest.mark.chaos, pytest.mark.timeout(120)]


def slow_job(seconds: float = 2.5, **fault) -> PdfJob:
    return PdfJobFactory(
        html_template="<h1>{{title}}</h1>",
        data={"title": "chaos report", "__fault__": {"sleep": seconds, **fault}},
    )


def assert_completed_once(chaos, recorder, job: PdfJob, *, attempts: int) -> None:
    job.refresh_from_db()
    assert job.status == JobStatus.COMPLETED, (job.error, chaos.logs_tail())
    assert job.attempts == attempts
    assert chaos.stored_objects().count(f"{job.job_id}.pdf") == 1
    assert recorder.completions(job) == 1


def test_sigkill_of_the_pool_child_mid_render_completes_on_a_later_attempt(chaos):
    chaos.worker("w1")
    job = slow_job()
    with EventRecorder(chaos.redis.url, [job]) as recorder:
        chaos.send(job)
        kill_attempt(wait_processing(chaos, job))
        wait_terminal(chaos, job)
    assert_completed_once(chaos, recorder, job, attempts=2)
    assert chaos.stored_objects() == [f"{job.job_id}.pdf"]


def test_killing_a_whole_worker_moves_its_jobs_to_the_other(chaos):
    chaos.beat()
    doomed = chaos.worker("doomed")
    chaos.worker("survivor")
    jobs = [slow_job(1.5) for _ in range(4)]
    with EventRecorder(chaos.redis.url, jobs) as recorder:
        for job in jobs:
            chaos.send(job)

        def doomed_is_rendering() -> PdfJob | None:
            for job in jobs:
                job.refresh_from_db()
                if job.status == "processing" and _child_of(doomed.pid, _pid(job)):
                    return job
            return None

        victim = wait_for(
            doomed_is_rendering, timeout=30, what="doomed worker to start a job", chaos=chaos
        )
        from tests.processes import kill_group

        kill_group(doomed)
        wait_terminal(chaos, *jobs, timeout=90)
    for job in jobs:
        expected = 2 if job.pk == victim.pk else job.attempts
        assert_completed_once(chaos, recorder, job, attempts=expected)
    assert len(chaos.stored_objects()) == 4


def _pid(job: PdfJob) -> int:
    return int(job.worker.split(":")[1]) if job.worker else -1


def _child_of(parent: int, pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1]) == parent
    except (OSError, ValueError, IndexError):
        return False


def test_sigterm_mid_render_restores_the_message_and_completes_after_restart(chaos):
    worker = chaos.worker("w1")
    job = slow_job(2.5)
    with EventRecorder(chaos.redis.url, [job]) as recorder:
        chaos.send(job)
        wait_processing(chaos, job)
        worker.send_signal(signal.SIGTERM)  # soft shutdown: 1 s, then the render is stopped
        worker.wait(timeout=30)
        job.refresh_from_db()
        assert job.status == JobStatus.PROCESSING  # interrupted, not finished or failed
        chaos.worker("w2")  # no beat running: only the restored message can finish it
        wait_terminal(chaos, job)
    assert_completed_once(chaos, recorder, job, attempts=2)


def test_poison_job_is_dead_lettered_after_max_attempts(chaos):
    chaos.worker("w1")
    job = PdfJobFactory(html_template="<p>x</p>", data={"__fault__": {"kill_child": True}})
    with EventRecorder(chaos.redis.url, [job]) as recorder:
        chaos.send(job)
        wait_terminal(chaos, job, timeout=60)
    job.refresh_from_db()
    assert (job.status, job.error_code, job.attempts) == (JobStatus.FAILED, "worker_lost", 3)
    assert "poison" in job.error
    letter = DeadLetter.objects.get(job=job)
    assert (letter.permanent, letter.attempts) == (True, 3)
    assert chaos.stored_objects() == []
    assert recorder.completions(job) == 0
    assert recorder.claims(job) == 3


def test_render_past_the_hard_limit_fails_with_timeout_and_is_not_redelivered(chaos):
    chaos.worker("w1", concurrency=2)  # both limits run out side by side, not one after
    stuck = slow_job(30, ignore_soft_limit=True)  # only the hard limit (7 s) can stop it
    slow = slow_job(30)  # the soft limit (5 s) stops this one
    with EventRecorder(chaos.redis.url, [stuck, slow]):
        chaos.send(stuck)
        chaos.send(slow)
        wait_terminal(chaos, stuck, slow, timeout=60)
        _wait_nothing_left_to_deliver(chaos)  # else a redelivery: a second attempt
    for job in (stuck, slow):
        job.refresh_from_db()
        assert (job.status, job.error_code, job.attempts) == (JobStatus.FAILED, "timeout", 1)
        assert job.error.startswith("timeout:")
    assert "hard time limit" in stuck.error
    assert "soft time limit" in slow.error
    assert chaos.stored_objects() == []


def _wait_nothing_left_to_deliver(chaos) -> None:
    """On Redis: both messages acknowledged and none waiting (kombu keeps a delivered,
    unacknowledged message in its `unacked` hash), so nothing can be delivered again. On
    AMQP, where an unacknowledged message is not in sight: the time a redelivery to the
    idle worker would take to show."""
    url = chaos.env["CELERY_BROKER_URL"]
    if not url.startswith("redis"):
        time.sleep(4)
        return
    client = redis.Redis.from_url(url)
    try:
        wait_for(
            lambda: client.llen("pdf") == 0 and client.hlen("unacked") == 0,
            timeout=30,
            what="both messages acknowledged",
            chaos=chaos,
        )
    finally:
        client.close()


def test_redis_restarted_empty_with_jobs_queued_and_processing_all_complete_once(chaos):
    chaos.beat()
    chaos.worker("w1")
    jobs = [slow_job(1.5) for _ in range(3)]
    for job in jobs:
        chaos.send(job)
    wait_processing(chaos, jobs[0])
    chaos.redis.restart_empty()  # every queued and reserved message is gone
    with EventRecorder(chaos.redis.url, jobs) as recorder:
        wait_terminal(chaos, *jobs, timeout=90)
    for job in jobs:
        job.refresh_from_db()
        assert job.status == JobStatus.COMPLETED, (job.error, chaos.logs_tail())
        assert chaos.stored_objects().count(f"{job.job_id}.pdf") == 1
        assert recorder.completions(job) <= 1  # at most once, even if it finished pre-wipe
    assert len(chaos.stored_objects()) == 3
    assert sum(recorder.completions(job) for job in jobs) >= 2


def test_submit_with_redis_down_answers_202_and_runs_when_redis_returns(chaos):
    base = chaos.web()
    chaos.beat()
    chaos.worker("w1")
    user = UserFactory()
    key = api_key_create(user=user)[1]
    wait_for(lambda: _up(base), timeout=30, what="web server", chaos=chaos)
    chaos.redis.stop()
    started = time.monotonic()
    response = httpx.post(
        f"{base}/api/v1/generate-pdf-async",
        headers={"X-API-Key": key},
        json={"html_template": "<p>{{x}}</p>", "data": {"x": "offline submit"}},
        timeout=30,
    )
    elapsed = time.monotonic() - started
    assert response.status_code == 202, response.text
    assert elapsed < 5
    job = PdfJob.objects.get(job_id=response.json()["job_id"])
    if chaos.env["CELERY_BROKER_URL"].startswith("redis"):
        assert job.status == JobStatus.QUEUED  # the broker is down too: the row waits
    chaos.redis.start()
    wait_terminal(chaos, job, timeout=60)
    assert (job.status, job.attempts) == (JobStatus.COMPLETED, 1)
    assert chaos.stored_objects() == [f"{job.job_id}.pdf"]


def _worker_log(chaos, name: str) -> str:
    return (chaos.logs / f"{name}.log").read_text(errors="replace")


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/api/v1/schema", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def test_same_message_delivered_twice_makes_one_transition_one_object_one_event(chaos):
    chaos.worker("w1", concurrency=2)
    job = slow_job(1.5)
    with EventRecorder(chaos.redis.url, [job]) as recorder:
        task_id = task_id_for(job.job_id)
        chaos.send(job, task_id=task_id)
        chaos.send(job, task_id=task_id)
        wait_terminal(chaos, job)
        # The deferred duplicate looks again after the stale window (3 s) and finds the job
        # done: both deliveries have ended once the worker logged each one's success.
        wait_for(
            lambda: _worker_log(chaos, "w1").count(f"[{task_id}] succeeded") >= 2,
            timeout=30,
            what="both deliveries to end",
            chaos=chaos,
        )
    assert_completed_once(chaos, recorder, job, attempts=1)
    assert recorder.claims(job) == 1


def test_storage_failing_twice_then_recovering_completes_on_attempt_three(chaos):
    chaos.worker(
        "w1",
        TEST_REPORT_STORAGE_BACKEND="tests.chaos.flaky_storage.FlakyStorage",
        CHAOS_STORAGE_FAILURES="2",
    )
    job = PdfJobFactory(html_template="<p>{{x}}</p>", data={"x": "stored at last"})
    with EventRecorder(chaos.redis.url, [job]) as recorder:
        chaos.send(job)
        wait_terminal(chaos, job, timeout=60)
    assert_completed_once(chaos, recorder, job, attempts=3)
    assert recorder.claims(job) == 3


def test_two_concurrent_redrives_enqueue_each_job_once(chaos):
    jobs = [PdfJobFactory(status=JobStatus.FAILED, error="x") for _ in range(10)]
    for job in jobs:
        DeadLetter.objects.create(job=job, error="x")
    chaos.worker("maint", concurrency=2, queues="maintenance")
    for _ in range(2):
        chaos.app.send_task("jobs.redrive_dead_letters", queue="maintenance")

    def all_requeued() -> bool:
        return all(PdfJob.objects.get(pk=job.pk).status == JobStatus.QUEUED for job in jobs)

    wait_for(all_requeued, timeout=30, what="jobs re-driven", chaos=chaos)
    time.sleep(1)
    waiting = messages_waiting(chaos.env["CELERY_BROKER_URL"], "pdf")
    sent = [headers["argsrepr"] for headers in waiting]
    assert sorted(sent) == sorted(f"['{job.job_id}']" for job in jobs)
    assert set(DeadLetter.objects.values_list("retry_count", flat=True)) == {1}


def test_cancelling_a_processing_job_stops_it_and_discards_the_result(chaos):
    from jobs import transitions

    chaos.worker("w1")
    job = slow_job(2.5)
    with EventRecorder(chaos.redis.url, [job]) as recorder:
        chaos.send(job)
        wait_processing(chaos, job)
        assert transitions.job_mark_cancelled(job_id=job.job_id) is not None
        time.sleep(3)  # past the render's own length: it would have completed by now
    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.CANCELLED, 1)
    assert chaos.stored_objects() == []
    assert recorder.completions(job) == 0


def test_cancelling_a_long_chromium_render_frees_the_worker_in_seconds(chaos, settings):
    """A Chromium job whose script would spin for a minute is cancelled mid-render: its
    page is closed and the worker takes the next job within seconds; until the worker has
    let go, the cancelled job still counts against its tenant's in-flight quota."""
    from django.db import transaction

    from jobs import quotas, services

    chaos.worker(
        "w1",
        PDF_SOFT_TIME_LIMIT="120",
        PDF_HARD_TIME_LIMIT="150",
        PDF_TEMPLATE_TIMEOUT_MS="60000",
        PDF_HEARTBEAT_SECONDS="5",
        PDF_HEARTBEAT_STALE_SECONDS="30",
        PDF_CANCEL_CHECK_SECONDS="1",
    )
    settings.PDF_MAX_JOBS_IN_FLIGHT = 1
    settings.PDF_HEARTBEAT_STALE_SECONDS = 30
    spin = "<script>const t = Date.now(); while (Date.now() - t < 60000) {}</script><p>x</p>"
    job = PdfJobFactory(engine="raw", html_template=spin, renderer="chromium", data={})
    chaos.send(job)
    wait_processing(chaos, job, timeout=60)
    time.sleep(2)  # well into the page's script
    services.job_cancel(job=job)
    cancelled_at = time.monotonic()
    assert quotas.jobs_in_flight_count(owner=job.owner) == 1  # the worker still holds it
    with pytest.raises(quotas.QuotaExceeded), transaction.atomic():
        quotas.job_slot_reserve(owner=job.owner)

    def let_go() -> bool:
        job.refresh_from_db()
        return job.heartbeat_at is None

    wait_for(let_go, timeout=20, what="the worker to let go of the cancelled job", chaos=chaos)
    released_in = time.monotonic() - cancelled_at
    assert quotas.jobs_in_flight_count(owner=job.owner) == 0
    following = PdfJobFactory(html_template="<p>next</p>", data={})
    chaos.send(following)
    wait_terminal(chaos, following, timeout=30)
    free_in = time.monotonic() - cancelled_at
    assert following.status == JobStatus.COMPLETED, (following.error, chaos.logs_tail())
    assert job.status == JobStatus.CANCELLED
    assert chaos.stored_objects() == [f"{following.job_id}.pdf"]
    assert released_in < 8, released_in
    assert free_in < 15, free_in
    print(
        f"\nCancel: a spinning Chromium render let go {released_in:.1f} s after the cancel; "
        f"the next job completed {free_in:.1f} s after it (the script would spin 60 s)"
    )
