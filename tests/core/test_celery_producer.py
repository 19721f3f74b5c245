"""Celery's producers skip the copy of an already declared queue: the same declarations,
the same answers from maybe_declare, the same messages from send_task."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from celery.app.amqp import AMQP as CeleryAMQP
from celery.utils.saferepr import saferepr
from django.conf import settings
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
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


@hypothesis_settings(max_examples=500, deadline=None)
@given(
    args=st.lists(
        st.text(alphabet="ab09_.:-'\"\\\n é", max_size=12)
        | st.text(alphabet="a", min_size=95, max_size=110)
        | st.integers()
        | st.none(),
        max_size=10,
    ).flatmap(lambda items: st.sampled_from([items, tuple(items)]))
)
def test_a_plain_args_repr_is_safereprs(args):
    ours = celery_producer.plain_args_repr(args)
    if ours is not None:
        assert ours == saferepr(args, 1024, maxlevels=3)


def test_a_job_ids_args_are_written_plainly():
    assert celery_producer.plain_args_repr([str(uuid.uuid4())]) is not None
    assert celery_producer.plain_args_repr(("render-1", "2")) == "('render-1', '2')"
    assert celery_producer.plain_args_repr(["it's"]) is None


@pytest.mark.parametrize(
    ("args", "kwargs", "given"),
    [
        ([str(uuid.uuid4())], None, {}),  # a submit's render message
        ((str(uuid.uuid4()), 3), None, {}),  # a chunk's
        ([], {}, {}),
        (None, None, {}),
        (["it's"], {"a": 1}, {}),
        (["x"], {"a": [1, 2]}, {}),
        (["x" * 2000], None, {}),
        (["x"], None, {"argsrepr": "given", "kwargsrepr": "also"}),
    ],
)
def test_the_message_is_celerys(args, kwargs, given):
    """Our as_task_v2 builds the message Celery's does (headers with argsrepr and
    kwargsrepr, properties, body), the time and origin fixed."""
    fixed = {"now": datetime(2026, 12, 7, tzinfo=UTC), "origin": "web@host", **given}
    call = ("render-id", "jobs.render_pdf", args, kwargs, 5)  # with a countdown
    ours = app.amqp.as_task_v2(*call, **fixed)
    theirs = CeleryAMQP.as_task_v2(app.amqp, *call, **fixed)
    assert ours == theirs
    assert ours.headers["argsrepr"] == given.get("argsrepr", saferepr(args or (), 1024))


def test_a_submits_message_is_written_without_saferepr(monkeypatch: Any):
    def refused(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("saferepr called")

    monkeypatch.setattr("celery.app.amqp.saferepr", refused)
    message = app.amqp.as_task_v2("render-id", "jobs.render_pdf", [str(uuid.uuid4())], None)
    assert message.headers["kwargsrepr"] == "{}"
