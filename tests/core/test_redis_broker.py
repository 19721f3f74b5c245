"""The Redis broker transport: one client per channel for every publish, the messages the
same, a new client once the channel has a new pool."""

from __future__ import annotations

import uuid

from django.conf import settings
from kombu import Connection, Exchange, Queue

from core import redis_broker
from core.celery import app


def test_the_celery_app_publishes_through_this_transport():
    with app.connection_for_write() as connection:
        assert isinstance(connection.transport, redis_broker.Transport)
        assert isinstance(connection.default_channel, redis_broker.Channel)


def test_publishes_reuse_one_client_and_each_message_arrives():
    name = f"test-broker-{uuid.uuid4().hex}"
    queue = Queue(name, Exchange(name, type="direct"), routing_key=name)
    with Connection(settings.CELERY_BROKER_URL) as connection:
        channel = connection.default_channel
        producer = connection.Producer(channel)
        clients = []
        for number in range(3):
            producer.publish(
                {"n": number}, exchange=queue.exchange, routing_key=name, declare=[queue]
            )
            clients.append(channel._sync_client)
        assert clients[0] is not None
        assert all(client is clients[0] for client in clients)
        with channel.conn_or_acquire() as client:
            assert client is clients[0]
        with channel.conn_or_acquire(client="given") as client:
            assert client == "given"
        received = []
        with connection.SimpleQueue(queue) as simple:
            for _ in range(3):
                message = simple.get(timeout=5)
                received.append(message.payload["n"])
                message.ack()
        assert received == [0, 1, 2]
        channel._disconnect_pools()  # as a channel's close or a reconnection does
        producer.publish({"n": 3}, exchange=queue.exchange, routing_key=name, declare=[queue])
        assert channel._sync_client is not clients[0]
        assert channel._sync_client.connection_pool is channel.pool
        with connection.SimpleQueue(queue) as simple:
            message = simple.get(timeout=5)
            assert message.payload == {"n": 3}
            message.ack()
            simple.queue.delete()
