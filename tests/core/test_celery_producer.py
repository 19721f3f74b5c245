"""Celery's producers skip the copy of an already declared queue: the same declarations,
the same answers from maybe_declare, the same messages from send_task."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Queue
from kombu import Producer as KombuProducer

from core import celery_producer
from core.celery import app


def _queue() -> Queue:
    name = f"test-producer-{uuid.uuid4().hex}"
    return Queue(name, Exchange(name, type="direct"), routing_key=name)


def test_the_celery_app_publishes_through_these_producers():
    assert isinstance(app.amqp, celery_producer.AMQP)
    with app.producer_or_acquire() as producer:
        assert isinstance(producer, celery_producer.Producer)


@pytest.mark.parametrize("retry", [False, True])
def test_maybe_declare_answers_as_kombus_and_declares_once(retry: bool, monkeypatch: Any):
    queue = _queue()
    with Connection(settings.CELERY_BROKER_URL) as connection:
        ours = celery_producer.Producer(connection.default_channel)
        theirs = KombuProducer(connection.default_channel)
        declared = connection.declared_entities
        # Not declared yet: kombu's own code declares it (the binding, on Redis).
        assert not celery_producer.declaration_cached(queue, ours.channel)
        assert ours.maybe_declare(queue, retry=retry) is True
        assert hash(queue) in declared
        assert not queue.is_bound  # kombu declared a bound copy, as it does
        # Declared: the same False as kombu's, without binding a copy first.
        bound: list[Any] = []
        real_bind = Queue.bind
        monkeypatch.setattr(Queue, "bind", lambda self, ch: bound.append(ch) or real_bind(self, ch))
        assert theirs.maybe_declare(queue, retry=retry) is False
        assert len(bound) == 1  # kombu copies the queue to find it declared
        assert ours.maybe_declare(queue, retry=retry) is False
        assert len(bound) == 1  # ours does not
        # A new connection has declared nothing: kombu's code declares it there again.
        declared.clear()
        assert ours.maybe_declare(queue, retry=retry) is True
        assert len(bound) == 2
        queue.bind(connection.default_channel).delete()


def test_bound_and_uncacheable_entities_go_through_kombu():
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = connection.default_channel
        queue = _queue()
        connection.declared_entities.add(hash(queue))
        assert celery_producer.declaration_cached(queue, channel)
        assert not celery_producer.declaration_cached(queue.bind(channel), channel)
        expiring = Queue(queue.name, queue.exchange, queue_arguments={"x-expires": 1000})
        assert not expiring.can_cache_declaration
        assert not celery_producer.declaration_cached(expiring, channel)
        assert not celery_producer.declaration_cached(queue, None)


def _published(queue: Queue, producer_class: type) -> tuple[dict, dict, Any]:
    """What app.send_task puts on `queue` when the pool's producers are `producer_class`."""
    pool = app.amqp.producer_pool
    pool.Producer = producer_class
    task_id = "render-fixed-id"
    with app.producer_or_acquire() as producer:
        assert type(producer) is producer_class or isinstance(producer, producer_class)
        app.send_task(
            "jobs.render_pdf", args=["x"], task_id=task_id, queue=queue, producer=producer
        )
    with (
        Connection(settings.CELERY_BROKER_URL) as connection,
        connection.SimpleQueue(queue) as simple,
    ):
        message = simple.get(timeout=5)
        message.ack()
        properties = dict(message.properties)
        properties["delivery_info"] = dict(properties.get("delivery_info", {}))
        properties.pop("delivery_tag", None)
        properties["delivery_info"].pop("delivery_tag", None)
        headers = dict(message.headers)
        headers.pop("sent_at", None)  # set by jobs.worker.signals when connected: a time
        return headers, properties, message.payload


def test_send_task_puts_the_same_message_on_the_queue():
    queue = _queue()
    try:
        theirs = _published(queue, KombuProducer)
        ours = _published(queue, celery_producer.Producer)
        assert ours == theirs
        assert theirs[0]["task"] == "jobs.render_pdf"
    finally:
        app.amqp.producer_pool.Producer = celery_producer.Producer
        with Connection(settings.CELERY_BROKER_URL) as connection:
            queue.bind(connection.default_channel).delete()
