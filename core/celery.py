"""The Celery application the apps publish through, configured from Django settings."""

from celery import Celery

from core import redis_broker

# A Redis broker's publishes reuse one client per channel (core/redis_broker.py).
redis_broker.install()

# Which apps' tasks it runs, and how it logs, are wiring: config/celery_app.py.
# Its producers skip kombu's copy of an already declared queue (core/celery_producer.py).
app = Celery("pdfreports", amqp="core.celery_producer:AMQP")
app.config_from_object("django.conf:settings", namespace="CELERY")
