"""With CELERY_BROKER_URL=amqp://… (RabbitMQ on loopback): queue stats, worker presence,
queue history, the reconciler and /metrics read Redis from REDIS_URL and the broker by
AMQP, never Redis on the broker URL."""

from __future__ import annotations

import math
import os
import time
from datetime import timedelta

import pytest
from amqp.exceptions import AccessRefused
from django.test import Client
from django.utils import timezone
from kombu import Connection, Exchange, Queue

from config.celery_app import app
from core.redis import redis_client
from jobs.models import JobStatus
from jobs.ops import reconciler
from jobs.ops.broker import broker_is_redis
from jobs.ops.history import HISTORY_KEY, queue_history, queue_history_record
from jobs.ops.queues import broker_stats
from jobs.worker.presence import presence_leave, presence_stamp
from tests.factories import PdfJobFactory
from tests.processes import service_missing
from tests.prometheus_text import parse, value
from tests.redis_plugin import amqp_url_with_vhost_suffix, xdist_worker_number

# .ci/run creates this vhost; a helper's own run sets RABBITMQ_URL to a vhost of its own.
RABBITMQ_URL = os.environ.get("RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/pdfreports_ci")


@pytest.fixture(scope="module")
def rabbitmq_url() -> str:
    """The run's vhost, or under pytest-xdist one per test process (they purge its queues).
    RabbitMQ missing fails in CI; elsewhere the tests skip, saying how to start it."""
    number = xdist_worker_number()
    url = (
        RABBITMQ_URL if number is None else amqp_url_with_vhost_suffix(RABBITMQ_URL, f"gw{number}")
    )
    try:
        with Connection(url, connect_timeout=2) as connection:
            connection.connect()
    except (OSError, AccessRefused) as exc:
        missing = (
            f"RabbitMQ is not reachable at {url} ({exc}): start it with "
            "`rabbitmq-server -detached` (Debian: apt-get install rabbitmq-server) and make the "
            "vhost (`rabbitmqctl add_vhost`, `set_permissions`), or set RABBITMQ_URL"
        )
        service_missing(missing)
    return url


def _pools_dropped() -> None:
    """Celery reads the settings live but keeps the pools it opened: dropped, the next
    publish connects to the broker the settings name now."""
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def amqp(settings, rabbitmq_url):
    settings.CELERY_BROKER_URL = rabbitmq_url
    # An earlier test's publish opened them to the tests' Redis: this test's would go there.
    _pools_dropped()
    with Connection(rabbitmq_url, connect_timeout=2) as connection:
        channel = connection.channel()
        for name in ("pdf", "maintenance", "callbacks", "previews"):
            Queue(name, Exchange(name), routing_key=name, channel=channel).declare()
            channel.queue_purge(name)
        yield connection
        for name in ("pdf", "maintenance", "callbacks", "previews"):
            channel.queue_purge(name)
    _pools_dropped()  # opened to RabbitMQ meanwhile: the next test publishes to Redis again


def test_queue_depths_come_from_rabbitmq_and_presence_from_redis(amqp):
    assert not broker_is_redis()
    producer = amqp.Producer()
    for n in range(3):
        producer.publish({"n": n}, exchange="", routing_key="pdf", headers={"sent_at": 1.0})
    presence_stamp(hostname="celery@amqp-test", info={}, instance="e" * 12)
    try:
        deadline = time.monotonic() + 5
        while (stats := broker_stats()) is not None and stats.queues["pdf"].depth < 3:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert stats is not None
        assert stats.queues["pdf"].depth == 3
        assert math.isnan(stats.queues["pdf"].oldest_age)  # AMQP cannot peek: unknown
        assert stats.queues["maintenance"] == type(stats.queues["pdf"])(depth=0, oldest_age=0.0)
        assert stats.workers_alive >= 1
        queue_history_record(stats, at=time.time())
        assert queue_history(since=time.time() - 60)[-1]["depth"]["pdf"] == 3
    finally:
        presence_leave(hostname="celery@amqp-test", instance="e" * 12)
        redis_client().delete(HISTORY_KEY)  # later dashboard tests would chart this sample


@pytest.mark.django_db
def test_metrics_answer_200_with_workers_on_an_amqp_broker(amqp):
    presence_stamp(hostname="celery@amqp-test", info={}, instance="f" * 12)
    try:
        response = Client().get("/metrics")
    finally:
        presence_leave(hostname="celery@amqp-test", instance="f" * 12)
    assert response.status_code == 200
    samples = parse(response.content.decode())
    assert value(samples, "pdf_broker_up") == 1
    assert value(samples, "pdf_workers_alive") >= 1


@pytest.mark.django_db
def test_the_reconciler_resends_what_was_never_sent_and_trusts_the_rest(amqp, settings):
    app.control.purge()
    old = timezone.now() - timedelta(seconds=settings.RECONCILE_QUEUED_AFTER_SECONDS + 60)
    never_sent = PdfJobFactory(status=JobStatus.QUEUED, enqueued_at=None)
    sent = PdfJobFactory(status=JobStatus.QUEUED, enqueued_at=old)
    for job in (never_sent, sent):
        type(job).objects.filter(pk=job.pk).update(updated_at=old)
    assert reconciler.jobs_reconcile()["queued"] == 1
    never_sent.refresh_from_db()
    sent.refresh_from_db()
    assert never_sent.enqueued_at is not None  # sent now
    assert sent.enqueued_at == old  # trusted to be waiting in RabbitMQ
