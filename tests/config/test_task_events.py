"""Celery task events: off unless CELERY_TASK_EVENTS is set (Flower turns them on itself)."""

from __future__ import annotations

import pytest

from tests.processes import python_answer

pytestmark = pytest.mark.process

_PRINT = (
    "import django; django.setup(); from config.celery_app import app; import json; "
    "print(json.dumps([app.conf.worker_send_task_events, app.conf.task_send_sent_event]))"
)


def _conf(env: dict[str, str]) -> list[bool]:
    return python_answer(_PRINT, env={**env, "DJANGO_SETTINGS_MODULE": "config.settings.test"})


@pytest.mark.parametrize(("value", "expected"), [(None, False), ("true", True), ("false", False)])
def test_task_events_follow_celery_task_events(monkeypatch, value, expected):
    import os

    env = {k: v for k, v in os.environ.items() if k != "CELERY_TASK_EVENTS"}
    if value is not None:
        env["CELERY_TASK_EVENTS"] = value
    assert _conf(env) == [expected, expected]
