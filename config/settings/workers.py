"""Celery (broker, delivery guarantees, beat) and the Channels layer for live updates."""

from __future__ import annotations

from typing import Any

from config.env import env_bool, env_int, env_str
from config.settings.core import TIME_ZONE
from config.settings.data import REDIS_URL
from config.settings.ops import ALERT_INTERVAL_SECONDS
from config.settings.pdf import (
    DLQ_REDRIVE_INTERVAL_SECONDS,
    PDF_HARD_TIME_LIMIT,
    PDF_RETRY_BACKOFF_MAX_SECONDS,
    PDF_SOFT_TIME_LIMIT,
    RECONCILE_INTERVAL_SECONDS,
    RETENTION_INTERVAL_SECONDS,
)
from config.settings.schedules import SCHEDULE_TICK_SECONDS

# ---------------------------------------------------------------- Celery
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or REDIS_URL
CELERY_RESULT_BACKEND = "django-db"
CELERY_RESULT_EXTENDED = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_DEFAULT_QUEUE = "pdf"
# Periodic repair gets a queue of its own so it never waits behind long renders.
CELERY_TASK_ROUTES = {
    # Callbacks wait on tenants' servers: a queue of their own, which the Procfile's
    # `callbacks` process serves with a thread pool, apart from the render children.
    "jobs.deliver_callback": {"queue": "callbacks"},
    "jobs.resend_webhook": {"queue": "callbacks"},
    # Mail to a job's owner waits on the mail server: a queue (and Procfile role) of its
    # own, so neither a slow mail server nor a tenant's slow receivers delay the other.
    "jobs.notify_owner": {"queue": "mail"},
    "runs.notify_owner": {"queue": "mail"},  # one mail when a run ends
    # Previews and thumbnails: short, time-limited, on workers of their own (Procfile).
    "jobs.render_preview": {"queue": "previews"},
    "jobs.reconcile": {"queue": "maintenance"},
    "jobs.redrive_dead_letters": {"queue": "maintenance"},
    "jobs.evaluate_alerts": {"queue": "maintenance"},
    "jobs.retention": {"queue": "maintenance"},
    "jobs.schedules_due": {"queue": "maintenance"},
    # A run's data fetch and its deliveries wait on other servers, like callbacks.
    "jobs.schedule_run_start": {"queue": "callbacks"},
    "jobs.schedule_deliver": {"queue": "callbacks"},
}
# A job is only acknowledged once rendered, so a crashed worker's job is redelivered.
CELERY_TASK_ACKS_LATE = True
# ...including when the pool child is killed mid-render (OOM, SIGKILL).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Renders are long and uneven: one at a time per child keeps queued work on idle workers.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Soft limit raises in the task so it can fail cleanly; the hard limit kills a stuck child.
CELERY_TASK_SOFT_TIME_LIMIT = PDF_SOFT_TIME_LIMIT
CELERY_TASK_TIME_LIMIT = PDF_HARD_TIME_LIMIT
# Warm shutdown (SIGTERM) waits this long for running renders, then stops them; their
# late-acked messages go back to the broker and another worker takes the job over.
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = float(env_int("WORKER_SOFT_SHUTDOWN_SECONDS", 20, minimum=0))
CELERY_WORKER_ENABLE_SOFT_SHUTDOWN_ON_IDLE = True
# Unacked messages return to the queue after this; it must outlast the longest render.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": PDF_HARD_TIME_LIMIT + PDF_RETRY_BACKOFF_MAX_SECONDS + 600,
}
# Recycle children so a leak in a rendering library cannot grow a worker forever.
CELERY_WORKER_MAX_TASKS_PER_CHILD = env_int("CELERY_WORKER_MAX_TASKS_PER_CHILD", 200, minimum=1)
# Celery's Django fixup closes the database connections before and after every task and,
# in a prefork child with a Django 5.1 PostgreSQL pool, closes the pool itself: every job
# opened a new connection (a new server backend) and a new pool with its threads. A reuse
# count no child lives to reach turns that off; jobs.worker.signals hands the task's
# connections back to the pool instead, as Django does after a request.
CELERY_DB_REUSE_MAX = 1_000_000_000
# On a lost broker connection, stop late-ack tasks rather than finish work nobody can ack.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A submit must answer fast even with the broker down: fail the publish quickly, keep the
# row queued, and let the reconciler send it when the broker is back.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_TASK_TRACK_STARTED = True
# Task events (sent, received, started, succeeded, failed...) for Flower and `celery events`:
# off unless CELERY_TASK_EVENTS is set, as each task sends them through the broker whether
# or not anyone listens. Flower turns the workers' task events on by itself when it starts
# (its `enable_events`, every few seconds); only the `sent` event, sent by the web process
# on publish, needs CELERY_TASK_EVENTS=true.
TASK_EVENTS = env_bool("CELERY_TASK_EVENTS", False)
CELERY_WORKER_SEND_TASK_EVENTS = TASK_EVENTS
CELERY_TASK_SEND_SENT_EVENT = TASK_EVENTS
# Celery's own defaults, spelled out because every publish reads them: a setting missing
# here is looked for under four spellings, each miss two exceptions, before Celery's
# defaults answer (tests/core/test_celery_settings.py keeps them equal to those defaults).
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_REPR_MAXLEVELS = 3
CELERY_BROKER_POOL_ACQUIRE_TIMEOUT = None
# Two beats at once send each periodic task once (a Redis lock per task and interval).
CELERY_BEAT_SCHEDULER = "jobs.ops.beat:LockedScheduler"
CELERY_BEAT_SCHEDULE = {
    "reconcile-jobs": {"task": "jobs.reconcile", "schedule": RECONCILE_INTERVAL_SECONDS},
    "redrive-dead-letters": {
        "task": "jobs.redrive_dead_letters",
        "schedule": DLQ_REDRIVE_INTERVAL_SECONDS,
    },
    "evaluate-alerts": {"task": "jobs.evaluate_alerts", "schedule": ALERT_INTERVAL_SECONDS},
    "retention": {"task": "jobs.retention", "schedule": RETENTION_INTERVAL_SECONDS},
    "schedules-due": {"task": "jobs.schedules_due", "schedule": SCHEDULE_TICK_SECONDS},
}

# ---------------------------------------------------------------- Channels
# redis-py's pool holds 100 connections and then raises instead of waiting; a web process
# with 1,000 live followers needs more (`make bench-push`, docs/benchmarks/index.md).
CHANNEL_LAYER_MAX_CONNECTIONS = env_int("CHANNEL_LAYER_MAX_CONNECTIONS", 2000, minimum=10)


# channels-redis waits for a message with BZPOPMIN for 5 s (brpop_timeout) and redis-py 8
# reads every answer within socket_timeout, 5 s by default: an idle follower then timed out
# client-side just as the server's empty answer came, logging a TimeoutError traceback
# every few seconds. The read may take a little longer than the block it waits for.
CHANNEL_LAYER_SOCKET_TIMEOUT = 15


def channel_layer_hosts(url: str) -> list[dict[str, object]]:
    return [
        {
            "address": url,
            "max_connections": CHANNEL_LAYER_MAX_CONNECTIONS,
            "socket_timeout": CHANNEL_LAYER_SOCKET_TIMEOUT,
        }
    ]


CHANNEL_LAYERS: dict[str, dict[str, Any]] = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": channel_layer_hosts(REDIS_URL), "capacity": 500, "expiry": 60},
    }
}
