"""Per-tenant quotas against real processes: two web servers share one count (database
and Redis), so no limit can be dodged by landing on another process."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from accounts.services import api_key_create, api_key_revoke
from config.celery_app import app as celery_app
from jobs.models import JobStatus, PdfJob
from tests.e2e.bystander import Bystander
from tests.factories import PdfJobFactory, UserFactory
from tests.livestack import wait_for_web
from tests.processes import free_port, start, stop, tail, web_args

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]
BODY = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}}


@contextmanager
def _web_pair(stack_env: dict[str, str], logs: Path, **env: str) -> Iterator[list[str]]:
    """Two more uvicorn processes with `env` on the live stack's database and Redis."""
    procs, urls = [], []
    try:
        for _ in range(2):
            port = free_port()
            log = logs / f"quota-web-{port}.log"
            procs.append(start(web_args(port), env={**stack_env, **env}, log=log))
            urls.append(f"http://127.0.0.1:{port}")
            wait_for_web(f"{urls[-1]}/livez", procs[-1], log)
        yield urls
    finally:
        for proc in procs:
            stop(proc)


@contextmanager
def _workers_paused() -> Iterator[None]:
    """Nothing leaves `queued` meanwhile, so in-flight counts only grow."""
    celery_app.control.cancel_consumer("pdf", reply=True, timeout=5)
    try:
        yield
    finally:
        celery_app.control.add_consumer("pdf", reply=True, timeout=5)


@pytest.fixture
def tenants(transactional_db) -> dict[str, object]:
    greedy, other = UserFactory(username="greedy"), UserFactory(username="modest")
    key, raw = api_key_create(user=greedy, name="greedy")
    return {"greedy": greedy, "key": key, "raw": raw, "other": api_key_create(user=other)[1]}


def test_fifty_parallel_submits_never_exceed_the_in_flight_limit(live_stack, stack_env, tenants):
    with (
        _web_pair(stack_env, live_stack.logs, PDF_MAX_JOBS_IN_FLIGHT="10") as urls,
        _workers_paused(),
        Bystander(live_stack.base_url, tenants["other"]) as bystander,
        httpx.Client(headers={"X-API-Key": tenants["raw"]}, timeout=30) as client,
        ThreadPoolExecutor(50) as pool,
    ):

        def submit(n: int) -> httpx.Response:
            try:
                return client.post(f"{urls[n % 2]}/api/v1/generate-pdf-async", json=BODY)
            except httpx.TransportError as exc:
                # "Server disconnected without sending a response" twice: the web process
                # had died, V8 aborting as its first concurrent submits made their parser
                # isolates at once (tests/rendering/test_v8_flags.py). What the web
                # processes logged says why, should a process die again.
                logs = "\n".join(
                    f"--- {log.name}\n{tail(log)}"
                    for log in sorted(live_stack.logs.glob("quota-web-*.log"))
                )
                raise AssertionError(f"submit {n} to {urls[n % 2]}: {exc!r}\n{logs}") from exc

        started = time.perf_counter()
        answers = list(pool.map(submit, range(50)))
        took = time.perf_counter() - started
        in_flight = PdfJob.objects.filter(
            owner=tenants["greedy"], status__in=[JobStatus.QUEUED, JobStatus.PROCESSING]
        ).count()
    codes = Counter(answer.status_code for answer in answers)
    assert codes == {202: 10, 429: 40}
    assert in_flight == 10
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.json()["limit"] == "PDF_MAX_JOBS_IN_FLIGHT"
    assert refused.json()["limit_value"] == 10
    assert took < 20
    bystander.assert_stayed_fast()
    print(
        f"\nIn-flight limit: 50 parallel submits over 2 processes: {dict(codes)} in "
        f"{took:.2f} s; {bystander.summary()}"
    )


def test_the_request_rate_per_tenant_is_shared_by_every_web_process(live_stack, stack_env, tenants):
    with (
        _web_pair(stack_env, live_stack.logs, API_RATE_SUBMIT="5/min") as urls,
        httpx.Client(headers={"X-API-Key": tenants["raw"]}, timeout=30) as client,
    ):
        answers = [
            client.post(f"{urls[n % 2]}/api/v1/generate-pdf-async", json=BODY) for n in range(8)
        ]
    assert [a.status_code for a in answers] == [202] * 5 + [429] * 3
    assert 0 < int(answers[-1].headers["Retry-After"]) <= 60
    assert answers[-1].json()["limit"] == "API_RATE_SUBMIT"


def test_streams_are_limited_per_tenant_and_close_when_their_key_is_revoked(
    live_stack, stack_env, tenants
):
    job = PdfJobFactory(owner=tenants["greedy"], status=JobStatus.PROCESSING, worker="x:1")
    headers = {"X-API-Key": tenants["raw"]}
    with (
        _web_pair(stack_env, live_stack.logs, STREAMS_MAX_PER_TENANT="3") as urls,
        httpx.Client(headers=headers, timeout=30) as client,
        ExitStack() as streams,
    ):
        events = [f"{urls[n % 2]}/api/v1/jobs/{job.job_id}/events" for n in range(3)]
        opened = [streams.enter_context(client.stream("GET", url)) for url in events]
        assert [response.status_code for response in opened] == [200, 200, 200]
        refused = client.get(events[0])
        assert (refused.status_code, refused.json()["limit"]) == (429, "STREAMS_MAX_PER_TENANT")
        with connect(
            urls[1].replace("http", "ws") + f"/ws/jobs/{job.job_id}/",
            additional_headers=headers,
        ) as ws:
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=5)
            assert closed.value.rcvd.code == 4429
        started = time.monotonic()
        api_key_revoke(user=tenants["greedy"], key_id=tenants["key"].pk)
        for response in opened:  # each stream ends by itself once the key is revoked
            list(response.iter_lines())
        closed_in = time.monotonic() - started
    assert closed_in < 5
    print(
        f"\nStreams: 4th refused (429, 4429); revoked key's 3 streams closed in {closed_in:.2f} s"
    )


def test_password_guessing_is_locked_out_while_others_sign_in(live_stack, tenants):
    import re

    victim = tenants["greedy"]
    victim.set_password("a long and unguessable passphrase")
    victim.save()

    def attempt(password: str) -> int:
        with httpx.Client(base_url=live_stack.base_url, timeout=30) as client:
            page = client.get("/login/")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            return client.post(
                "/login/",
                data={"username": "greedy", "password": password, "csrfmiddlewaretoken": token},
                headers={"Referer": live_stack.url("/login/")},
            ).status_code

    with Bystander(live_stack.base_url, tenants["other"]) as bystander:
        started = time.perf_counter()
        guesses = [attempt(f"guess number {n}") for n in range(6)]
        took = time.perf_counter() - started
        right = attempt("a long and unguessable passphrase")
    assert guesses == [200] * 4 + [429, 429]
    assert right == 429  # locked for AXES_COOLOFF_MINUTES, even with the right password
    assert took < 10
    bystander.assert_stayed_fast()
    print(f"\nSign-in: locked after 5 guesses ({took:.2f} s for 6); {bystander.summary()}")
