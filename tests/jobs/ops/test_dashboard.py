"""The ops dashboard: staff only, and what it shows comes from real jobs, alerts, the queue
history and the workers' presence."""

from __future__ import annotations

import json
import socket
import time
from datetime import timedelta

import pytest
import redis
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone

from jobs import services
from jobs.models import Alert, AlertRule, DeadLetter, JobStatus, PdfJob
from jobs.ops.dashboard import RANGES, dashboard_snapshot, job_series
from jobs.ops.history import HISTORY_KEY, queue_history_record
from jobs.ops.queues import BrokerStats, QueueStats
from jobs.worker import execution
from jobs.worker.presence import presence_leave, presence_stamp
from tests.factories import PdfJobFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client() -> Client:
    client = Client()
    client.force_login(UserFactory(is_staff=True))
    return client


def test_only_staff_see_the_dashboard_and_its_feed(staff_client):
    anonymous = Client().get("/ops/")
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/admin/login/")
    person = Client()
    person.force_login(UserFactory())
    assert person.get("/ops/data.json").status_code == 302
    page = staff_client.get("/ops/")
    assert page.status_code == 200
    assert b'id="ops-snapshot"' in page.content
    feed = staff_client.get("/ops/data.json?range=24h")
    assert feed.status_code == 200
    assert feed.json()["range"] == "24h"


def test_series_count_jobs_and_time_them_per_bucket():
    now = timezone.now()
    PdfJobFactory.create_batch(4, status=JobStatus.COMPLETED)
    PdfJobFactory(status=JobStatus.FAILED, error_code="timeout", completed_at=now)
    for job, seconds in zip(
        PdfJob.objects.filter(status=JobStatus.COMPLETED), (2, 4, 6, 8), strict=True
    ):
        PdfJob.objects.filter(pk=job.pk).update(
            created_at=now - timedelta(seconds=seconds), completed_at=now
        )
    series = job_series(RANGES["1h"], now=now + timedelta(seconds=1))
    last = max(i for i, n in enumerate(series["completed"]) if n)
    assert sum(series["completed"]) == 4
    assert sum(series["failed"]) == 1
    assert series["failure_rate"][last] == 0.2
    assert series["p50"][last] == 4.0
    assert series["p95"][last] == 8.0
    assert len(series["t"]) == len(series["completed"]) == 31  # 2-minute buckets


def test_snapshot_lists_slowest_and_failed_jobs_with_links_and_alerts(settings):
    settings.PDF_MAX_PAGES = 1
    owner = UserFactory()
    job, _ = services.job_create(owner=owner, html_template="<p>{{x}}</p>", data={"x": 1})
    execution.job_execute(job_id=job.job_id)
    bad, _ = services.job_create(
        owner=owner, html_template="<p>a</p><pdf:nextpage /><p>b</p>", data={}
    )
    execution.job_execute(job_id=bad.job_id)
    letter = DeadLetter.objects.create(job=PdfJob.objects.get(pk=bad.pk), error="x")
    now = timezone.now()
    Alert.objects.create(
        rule=AlertRule.FAILURE_RATE,
        message="50.0% of jobs failed",
        value=0.5,
        threshold=0.05,
        last_value=0.5,
        last_checked_at=now,
        opened_at=now,
    )

    snapshot = dashboard_snapshot("6h")
    slow = snapshot["slowest"][0]
    assert slow["job_id"] == str(job.job_id)
    assert slow["url"] == f"/admin/jobs/pdfjob/{job.pk}/change/"
    assert slow["template"] == "inline"
    failed = snapshot["failed"][0]
    assert failed["job_id"] == str(bad.job_id)
    assert failed["error_code"] == "limit_exceeded"
    assert failed["dead_letter_url"] == f"/admin/jobs/deadletter/{letter.pk}/change/"
    assert snapshot["alerts"][0]["rule"] == "Failure rate"
    assert snapshot["alerts"][0]["open"] is True
    assert snapshot["last_hour"]["completed"] == 1
    assert snapshot["last_hour"]["failed"] == 1
    json.dumps(snapshot)  # the feed serialises it as is


def test_queue_depth_history_comes_from_beat_samples():
    client = redis.Redis.from_url(django_settings.REDIS_URL)  # history: REDIS_URL, any broker
    client.delete(HISTORY_KEY)
    now = time.time()
    for minutes_ago, depth in ((30, 4), (20, 9), (10, 0)):
        stats = BrokerStats(
            queues={"pdf": QueueStats(depth=depth, oldest_age=0.0)}, workers_alive=1
        )
        queue_history_record(stats, at=now - 60 * minutes_ago)
    queues = dashboard_snapshot("1h")["queues"]
    assert queues["pdf"] == [4, 9, 0]
    assert queues["t"] == sorted(queues["t"])
    client.delete(HISTORY_KEY)


def test_workers_show_the_job_each_child_renders():
    host = socket.gethostname()
    job = PdfJobFactory(status=JobStatus.PROCESSING, worker=f"{host}:4242", stage="laying_out")
    presence_stamp(
        hostname="celery@dash-test",
        info={"host": host, "pid": 4200, "processes": [4242, 4243], "queues": ["pdf"]},
    )
    try:
        workers = {w["hostname"]: w for w in dashboard_snapshot("6h")["workers"]}
    finally:
        presence_leave(hostname="celery@dash-test")
    worker = workers["celery@dash-test"]
    assert worker["children"] == 2
    assert [j["job_id"] for j in worker["jobs"]] == [str(job.job_id)]
    assert worker["jobs"][0]["stage"] == "laying_out"
