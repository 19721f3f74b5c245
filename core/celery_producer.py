"""Celery's producers, without binding a copy of an already declared queue on every publish.

Celery passes the task's queue to `Producer.publish(declare=[queue])`. Kombu's
`maybe_declare` first binds the queue to the channel, which for Celery's queues (shared,
never bound) copies the queue and its exchange and bindings (`copy.copy` through
`as_dict`, then `when_bound`), and only then finds the queue in the connection's
`declared_entities` and does nothing: about a fifth of a submit's publish went to that copy.
Here a queue that is not bound, may be cached and whose declaration the producer's
connection has already cached returns False at once, as kombu's `_maybe_declare` returns
for it after the copy; everything else (the first publish, a new connection, a bound
entity, an entity that may not be cached) goes through kombu's own code."""

from __future__ import annotations

from typing import Any

from celery.app.amqp import AMQP as CeleryAMQP
from kombu import Producer as KombuProducer


def declaration_cached(entity: Any, channel: Any) -> bool:
    """Whether kombu's maybe_declare of `entity` on `channel` would only find it cached:
    the entity not bound (so kombu would bind a copy to `channel`, the same name and
    hash), allowed a cached declaration, and that declaration in the connection's set."""
    connection = getattr(channel, "connection", None)
    if not connection or entity.is_bound or not entity.can_cache_declaration:
        return False
    return hash(entity) in connection.client.declared_entities


class Producer(KombuProducer):
    def maybe_declare(self, entity: Any, retry: bool = False, **retry_policy: Any) -> Any:
        if entity and declaration_cached(entity, self.channel):
            return False  # what kombu's _maybe_declare returns for a cached declaration
        return super().maybe_declare(entity, retry, **retry_policy)


class AMQP(CeleryAMQP):
    """Celery's AMQP helpers with this module's producers: the messages, routing and
    retry policy are Celery's. Celery's producer pool is kombu's shared pool for the
    broker connection (`kombu.pools.producers`), which makes its producers from its
    `Producer` attribute when a producer is first used; that attribute is set here."""

    Producer = Producer

    @property
    def producer_pool(self) -> Any:
        pool = super().producer_pool
        pool.Producer = Producer
        return pool
