"""Log configuration: JSON or text, context merged in, secrets scrubbed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_choice
from core import logs
from core.logs import REDACTED, redact
from tests.processes import BASE_DIR

pytestmark = pytest.mark.process


EMIT = (
    "import django; django.setup()\n"
    "import logging\n"
    "from jobs.log_context import log_context_start, stage_log_bind\n"
    "log_context_start(job_id='j-1', tenant='7', attempt=2)\n"
    "stage_log_bind('laying_out')\n"
    "logging.getLogger('jobs.demo').warning('page %s of %s', 3, 9)\n"
    "logging.getLogger('jobs.demo').info('x', extra={'token': 'abc', 'api_key': 'rk_1'})\n"
)


def _emit(log_format: str) -> list[str]:
    env = {
        **os.environ,
        "LOG_FORMAT": log_format,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    done = subprocess.run(
        [sys.executable, "-c", EMIT], cwd=BASE_DIR, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()


def test_json_lines_carry_the_bound_job_context():
    first, second = (json.loads(line) for line in _emit("json"))
    assert first["event"] == "page 3 of 9"
    assert (first["job_id"], first["tenant"], first["attempt"]) == ("j-1", "7", 2)
    assert first["stage"] == "laying_out"
    assert first["level"] == "warning"
    assert first["logger"] == "jobs.demo"
    assert first["timestamp"].endswith("Z")
    assert second["token"] == second["api_key"] == "[redacted]"


def test_text_lines_stay_readable():
    first = _emit("text")[0]
    assert "[warning" in first
    assert "page 3 of 9" in first
    assert "job_id=j-1" in first
    assert "stage=laying_out" in first
    assert not first.startswith("{")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (
            "GET /api/v1/jobs/1/pdf?token=abc.def HTTP/1.1",
            "GET /api/v1/jobs/1/pdf?token=[redacted] HTTP/1.1",
        ),
        ("/x?a=1&token=zz&b=2", "/x?a=1&token=[redacted]&b=2"),
        ("/x?api_key=rk_0123456789ab_secretsecret", "/x?api_key=[redacted]"),
        # DocRaptor's clients may send the key in the query (issue 42, Low): our own access
        # lines never keep it, whatever it looks like.
        (
            "GET /docraptor/status/1?user_credentials=anything-at-all HTTP/1.1",
            "GET /docraptor/status/1?user_credentials=[redacted] HTTP/1.1",
        ),
        ("key rk_0123456789ab_AbC-dEf_123456 used", "key rk_0123456789ab_[redacted] used"),
        ("nothing secret here", "nothing secret here"),
    ],
)
def test_redact(raw, clean):
    assert redact(raw) == clean


def test_unknown_log_format_is_refused(monkeypatch):
    monkeypatch.setenv("LOG_FORMAT", "xml")
    with pytest.raises(ImproperlyConfigured, match="LOG_FORMAT"):
        env_choice("LOG_FORMAT", "json", ("json", "text"))


@pytest.mark.parametrize(
    "text",
    [
        "job accepted (handlebars engine, template inline)",
        "GET /api/v1/jobs/1/pdf?token=abc&x=1",
        "key rk_0123456789ab_SECRETsecret123 used",
        "a=b and rk_0123456789ab_SECRETsecret123 and &API_KEY=zz",
        "rk_ alone, = alone, RK_0123456789ab_SECRETsecret123",
        "",
    ],
)
def test_redact_answers_as_both_patterns_applied_in_turn(text: str) -> None:
    both = logs._API_KEY.sub(r"\1_" + REDACTED, logs._QUERY_SECRET.sub(r"\1" + REDACTED, text))
    assert logs.redact(text) == both
