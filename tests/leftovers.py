"""A fast-tier test leaves no Celery message in its test process's broker queues, nor a
sample in the dashboard's queue history (a pytest plugin: tests/conftest.py lists it in
`pytest_plugins`).

Each test process has its own Redis database, and its live stack's worker (the e2e and
browser tests, later in the same process) takes from that database's queues: a render
message a unit test left there ran, minutes later, for a row that no longer existed, and
a mail or preview message would run the same way. The tests with a worker of their own
(the live stack, the chaos harness: any tier marker) are not checked: their workers
take what they send, and the live stack's tests are settled (tests/livestack.py).

What else a test leaves in that database, and why it may stay:
- `_kombu.binding.<queue>` (and `_kombu.binding_deadlines`, the expiry of the control
  commands' bindings): kombu's routing table, written by the first publish to a queue;
  every publish and worker writes the same, whatever the test.
- `asgi:group:<name>` (channels_redis, after a socket test that starts a server): group
  members that expire after a day; a later send to a channel nobody reads is dropped.
- `cache-generation:<name>` (core/generation_cache.py): counters that committed writes
  move on; a process only compares them with the number it read itself, so a number an
  earlier test left is just a later generation.
- rate, quota, stream and lease counters: `limits_forgotten` (tests/conftest.py) deletes
  them after every test.
- `pdf:ops:queue-history` (jobs/ops/history.py: beat's one sample a minute) is not like
  these: the dashboard charts every sample of its window, so a later dashboard test
  would draw what an earlier one recorded. It is checked here with the queues."""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from django.conf import settings

from jobs.ops.broker import broker_is_redis
from jobs.ops.history import HISTORY_KEY
from jobs.ops.queues import celery_queues
from tests.markers import in_fast_tier

SHOWN = 20  # messages read per queue to name their tasks; the count is exact


def _task_name(raw: bytes) -> str:
    try:
        return str(json.loads(raw)["headers"]["task"])
    except (ValueError, KeyError, TypeError):
        return "(not a Celery message)"


def _message(raw: bytes) -> dict[str, Any]:
    envelope = json.loads(raw)
    body = envelope["body"]
    if envelope["properties"].get("body_encoding") == "base64":
        body = base64.b64decode(body)
    args, kwargs, _ = json.loads(body)
    return {"task": envelope["headers"]["task"], "args": args, "kwargs": kwargs}


class Leftovers:
    """One pipeline per test: each queue's length and first messages, and whether the
    queue history exists. The queues are the Celery configuration's (default and routed);
    on RabbitMQ they are not looked at (a passive declare per queue, and the RabbitMQ
    tests purge their own)."""

    def __init__(self) -> None:
        self.queues = celery_queues() if broker_is_redis() else []
        # The broker is REDIS_URL's database unless CELERY_BROKER_URL names another.
        self.client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5)
        self.broker = self.client
        if self.queues and settings.CELERY_BROKER_URL != settings.REDIS_URL:
            self.broker = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=5)

    def found(self) -> list[str]:
        """What is left, one line each; empty when nothing is. Left messages are deleted,
        so that the next test and the live stack never see them."""
        pipe = self.broker.pipeline(transaction=False)
        for queue in self.queues:
            pipe.llen(queue)
            pipe.lrange(queue, 0, SHOWN - 1)
        if self.broker is not self.client:  # a second round trip only in that case
            replies = pipe.execute()
            pipe = self.client.pipeline(transaction=False)
        else:
            replies = []
        pipe.exists(HISTORY_KEY)
        replies += pipe.execute()
        lines, left = [], []
        for i, queue in enumerate(self.queues):
            count, raw = int(replies[2 * i]), replies[2 * i + 1]
            if count:
                left.append(queue)
                tasks = Counter(_task_name(message) for message in raw)
                named = ", ".join(f"{name} x{n}" for name, n in sorted(tasks.items()))
                more = f" (the first {SHOWN} of {count})" if count > SHOWN else ""
                lines.append(f"queue {queue!r}: {count} message(s): {named}{more}")
        if left:
            self.broker.delete(*left)
        if replies[-1]:
            lines.append(f"key {HISTORY_KEY!r}: the dashboard's queue-depth samples")
            self.client.delete(HISTORY_KEY)
        return lines

    def take(self, queue: str) -> list[dict[str, Any]]:
        """The messages waiting in `queue`, oldest first (kombu pushes on the left), taken
        off it: each its task name, args and kwargs."""
        pipe = self.broker.pipeline(transaction=True)
        pipe.lrange(queue, 0, -1)
        pipe.delete(queue)
        raw, _ = pipe.execute()
        return [_message(item) for item in reversed(raw)]

    def close(self) -> None:
        self.client.close()
        self.broker.close()


@pytest.fixture(scope="session")
def _leftovers() -> Iterator[Leftovers]:
    leftovers = Leftovers()
    # What an earlier run left in this database (one stopped before its end, or a run of
    # other tests on it) is not the first test's doing: deleted before any test runs.
    leftovers.found()
    yield leftovers
    leftovers.close()


@pytest.fixture
def published(_leftovers: Leftovers) -> Callable[[str], list[dict[str, Any]]]:
    """For a test whose point is that a message is published: `published("pdf")` takes
    the messages waiting in that queue of this test process's broker (Redis), oldest
    first, as {"task", "args", "kwargs"}, so that the test asserts them and leaves none."""
    if not _leftovers.queues:  # CI's RabbitMQ step runs e2e and chaos tests only
        pytest.fail("published() reads the queues of a Redis broker, not RabbitMQ's")
    return _leftovers.take


@pytest.fixture(autouse=True)
def nothing_left_behind(request: pytest.FixtureRequest) -> Iterator[None]:
    """A fast-tier test fails when it left a message in a Celery queue (or queue history),
    naming the queue and the tasks, and saying how not to."""
    if not in_fast_tier(request.node):
        yield
        return
    leftovers: Leftovers = request.getfixturevalue("_leftovers")
    yield
    lines = leftovers.found()
    if lines:
        pytest.fail(
            "this test left, in its Redis database:\n  " + "\n  ".join(lines) + "\n" + HOW,
            pytrace=False,
        )


HOW = (
    "Nothing takes a message here, and this test process's live stack would run it later "
    "against rows that no longer exist: ask for the `sent_tasks` fixture (tests/conftest.py), "
    "which records every `*_enqueue` of the dispatch modules instead of publishing; a test "
    "whose point is that a message is published asserts it with `published(queue)` "
    "(tests/leftovers.py), which takes it off the queue. A queue-history sample: delete "
    "HISTORY_KEY (jobs/ops/history.py) when the test ends. This check has deleted them all."
)
