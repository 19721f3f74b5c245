"""The Celery settings spelled out for speed are Celery's defaults, and a publish finds
every setting it reads among the Django settings (no spelling-by-spelling misses)."""

from __future__ import annotations

import uuid
from typing import Any

import redis
from celery.app.defaults import DEFAULTS
from celery.utils.collections import ConfigurationView, DictAttribute
from django.conf import settings

from core.celery import app

SPELLED_OUT = ("task_always_eager", "task_repr_maxlevels", "broker_pool_acquire_timeout")


def test_the_spelled_out_settings_are_celerys_defaults():
    for name in SPELLED_OUT:
        assert getattr(settings, f"CELERY_{name.upper()}") == DEFAULTS[name]
        assert app.conf[name] == DEFAULTS[name]


def test_a_publish_reads_only_settings_the_django_settings_have(monkeypatch: Any):
    queue = f"test-settings-{uuid.uuid4().hex}"
    app.send_task("jobs.render_pdf", args=["x"], queue=queue)  # the first builds its caches
    read: list[str] = []
    real = ConfigurationView.__getitem__

    def getitem(self: ConfigurationView, key: str) -> Any:
        read.append(key)
        return real(self, key)

    monkeypatch.setattr(ConfigurationView, "__getitem__", getitem)
    try:
        app.send_task("jobs.render_pdf", args=["x"], queue=queue)
    finally:
        monkeypatch.undo()
        redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(queue)
    assert read  # the publish does read settings this way
    django_settings = next(m for m in app.conf.maps if isinstance(m, DictAttribute))
    for key in read:
        assert f"CELERY_{key.upper()}" in django_settings, key
