"""The client's retry rules against a real loopback HTTP server: Retry-After on 429,
backoff on 5xx, one Idempotency-Key across the retries of a submit, no blind repeat of a
request that is not safe to repeat."""

from __future__ import annotations

import asyncio
import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from click.testing import CliRunner

from pdfreports import ApiError, AsyncClient, Client, RetryEvent, RetryPolicy, ServiceUnavailable
from pdfreports.cli import cli
from pdfreports.retry import retry_after_seconds
from tests.client.scripted_server import scripted_server

QUEUED = {"job_id": "7d5c", "status": "queued", "status_url": "http://x/api/v1/jobs/7d5c"}
FAST = RetryPolicy(backoff=0.05, max_backoff=0.2)


def test_retry_after_reads_seconds_and_http_dates():
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    assert retry_after_seconds("7") == 7.0
    assert (
        retry_after_seconds(format_datetime(now + timedelta(seconds=90), usegmt=True), now=now)
        == 90
    )
    assert retry_after_seconds(format_datetime(now - timedelta(hours=1), usegmt=True), now=now) == 0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None


def test_submit_waits_for_retry_after_and_repeats_the_same_idempotency_key():
    answers = [(429, {"Retry-After": "1"}, {"error": "slow down", "code": "throttled"})] * 2
    with scripted_server([*answers, (202, {}, QUEUED)]) as server:
        retries: list[RetryEvent] = []
        with Client(server.url, "k", on_retry=retries.append) as client:
            job = client.submit(html_template="<p>{{x}}</p>", data={"x": 1})
    assert job.job_id == "7d5c"
    assert [s.path for s in server.seen] == ["/api/v1/generate-pdf-async"] * 3
    keys = {s.headers["Idempotency-Key"] for s in server.seen}
    assert len(keys) == 1
    assert keys != {""}
    assert all(s.body == {"html_template": "<p>{{x}}</p>", "data": {"x": 1}} for s in server.seen)
    assert server.seen[1].at - server.seen[0].at >= 0.95
    assert server.seen[2].at - server.seen[1].at >= 0.95
    assert [(r.delay, r.reason) for r in retries] == [(1.0, "429 Too Many Requests")] * 2


def test_a_long_retry_after_is_capped():
    policy = RetryPolicy(max_retry_after=2)
    with scripted_server([(429, {"Retry-After": "3600"}, {}), (202, {}, QUEUED)]) as server:
        retries: list[RetryEvent] = []
        with Client(server.url, "k", retry=policy, on_retry=retries.append) as client:
            client.submit("invoice")
    assert retries[0].delay == 2


def test_5xx_answers_back_off_exponentially_then_succeed():
    state = {**QUEUED, "status": "processing", "progress": 40, "seq": 3}
    answers = [(503, {}, {}), (502, {}, {}), (500, {}, {}), (200, {}, state)]
    with scripted_server(answers) as server:
        retries: list[RetryEvent] = []
        with Client(server.url, "k", retry=FAST, on_retry=retries.append) as client:
            got = client.get_job("7d5c")
    assert got.status == "processing"
    assert got.progress == 40
    assert [r.reason for r in retries] == [
        "503 Service Unavailable",
        "502 Bad Gateway",
        "500 Internal Server Error",
    ]
    for attempt, retry in enumerate(retries):  # base * 2**n, jittered down to half
        ceiling = min(FAST.max_backoff, FAST.backoff * 2**attempt)
        assert ceiling / 2 <= retry.delay <= ceiling


def test_a_request_that_may_have_acted_is_not_repeated_on_500():
    answers = [
        (404, {}, {"error": "No template", "code": "not_found"}),
        (500, {}, {"error": "boom"}),
    ]
    with scripted_server(answers) as server, Client(server.url, "k", retry=FAST) as client:
        with pytest.raises(ApiError) as raised:
            client.push_template("mine", html="<p>x</p>")
    assert raised.value.status_code == 500
    assert [(s.method, s.path) for s in server.seen] == [
        ("GET", "/api/v1/templates/mine"),
        ("POST", "/api/v1/templates"),  # once: creating twice is not safe to assume
    ]


def test_gives_up_after_the_last_retry_with_the_services_message():
    policy = RetryPolicy(max_retries=2, backoff=0.01)
    busy = (503, {}, {"error": "Down for maintenance", "code": "unavailable"})
    with scripted_server([busy] * 3) as server, Client(server.url, "k", retry=policy) as client:
        with pytest.raises(ApiError) as raised:
            client.get_job("7d5c")
    assert len(server.seen) == 3
    assert (raised.value.status_code, raised.value.message) == (503, "Down for maintenance")


def test_a_refused_connection_is_retried_then_reported():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    retries: list[RetryEvent] = []
    policy = RetryPolicy(max_retries=2, backoff=0.01)
    with Client(url, "k", retry=policy, on_retry=retries.append) as client:
        with pytest.raises(ServiceUnavailable, match="ConnectError"):
            client.get_job("7d5c")
    assert [r.reason for r in retries] == ["ConnectError", "ConnectError"]


def test_async_client_honours_retry_after_and_keeps_the_key():
    async def submit(url: str) -> str:
        async with AsyncClient(url, "k") as client:
            return (await client.submit("invoice", data={"a": 1})).job_id

    with scripted_server([(429, {"Retry-After": "1"}, {}), (202, {}, QUEUED)]) as server:
        assert asyncio.run(submit(server.url)) == "7d5c"
    first, second = server.seen
    assert second.at - first.at >= 0.95
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]


def test_cli_says_it_is_retrying_and_exits_3_with_the_services_error():
    answers = [
        (429, {"Retry-After": "1"}, {}),
        (401, {}, {"error": "Invalid API key.", "code": "authentication_failed"}),
    ]
    with scripted_server(answers) as server:
        result = CliRunner().invoke(
            cli, ["--url", server.url, "--api-key", "bad", "submit", "invoice"]
        )
    assert result.exit_code == 3
    assert "429 Too Many Requests; trying again in 1.0 s" in result.stderr
    assert "Invalid API key. (HTTP 401, authentication_failed)" in result.stderr


def test_cli_without_an_api_key_is_a_usage_error(monkeypatch):
    monkeypatch.delenv("PDFREPORTS_API_KEY", raising=False)
    result = CliRunner().invoke(cli, ["status", "7d5c"])
    assert result.exit_code == 2
    assert "PDFREPORTS_API_KEY" in result.stderr
