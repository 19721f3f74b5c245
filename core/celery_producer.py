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

import re
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


# Strings whose repr is the text in single quotes, as Celery's saferepr writes a string.
_PLAIN_TEXT = re.compile(r"[A-Za-z0-9_.:-]{0,100}")


def plain_args_repr(args: Any) -> str | None:
    """repr(args), which is what Celery's saferepr writes for a list or tuple of at most
    eight short strings of letters, digits and `_.:-` (no quote or escape to write, far
    below its 1,024 characters and one level deep); None for anything else."""
    if type(args) not in (list, tuple) or len(args) > 8:
        return None
    for arg in args:
        if type(arg) is not str or not _PLAIN_TEXT.fullmatch(arg):
            return None
    return repr(args)


class AMQP(CeleryAMQP):
    """Celery's AMQP helpers with this module's producers: the messages, routing and
    retry policy are Celery's. Celery's producer pool is kombu's shared pool for the
    broker connection (`kombu.pools.producers`), which makes its producers from its
    `Producer` attribute when a producer is first used; that attribute is set here."""

    Producer = Producer

    def as_task_v2(
        self,
        task_id: Any,
        name: Any,
        args: Any = None,
        kwargs: Any = None,
        *rest: Any,
        argsrepr: str | None = None,
        kwargsrepr: str | None = None,
        **options: Any,
    ) -> Any:
        """Celery's message, with the log header's `argsrepr` and `kwargsrepr` written
        without saferepr's token stream where that gives the same text (a job id, no
        keyword arguments: every message a submit sends); saferepr for anything else.
        Celery reads `task_repr_maxlevels` for each; a level of at least 1 keeps a flat
        list whole, as here."""
        if argsrepr is None or (kwargsrepr is None and not kwargs):
            maxlevels = self.app.conf.task_repr_maxlevels
            if isinstance(maxlevels, int) and maxlevels >= 1:
                if argsrepr is None:
                    argsrepr = plain_args_repr(args or ())  # Celery's `args or ()`
                if kwargsrepr is None and not kwargs:
                    kwargsrepr = "{}"  # saferepr({}): Celery's `kwargs or {}`
        # send_task passes both by keyword, after the 21 arguments it gives by position.
        options.update(argsrepr=argsrepr, kwargsrepr=kwargsrepr)
        return super().as_task_v2(task_id, name, args, kwargs, *rest, **options)

    @property
    def producer_pool(self) -> Any:
        pool = super().producer_pool
        pool.Producer = Producer
        return pool
