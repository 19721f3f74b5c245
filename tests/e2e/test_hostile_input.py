"""Hostile input against the real stack (uvicorn, a Celery worker, Redis, the database):
each attack is refused with a 4xx or a job failed with a limit, within seconds, while a
second tenant's submits and status reads stay fast."""

from __future__ import annotations

import io
import re
import select
import socket
import time
from typing import Any

import httpx
import pytest

from accounts.services import api_key_create
from tests.e2e.bystander import Bystander
from tests.e2e.conftest import wait_for_status
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]
TERMINAL = {"completed", "failed", "cancelled"}
EVIL = "^(a+)+$"
LONG = "a" * 40_000 + "!"  # Python's re would backtrack here for longer than a lifetime
PASSWORD = "attacker password 1"


@pytest.fixture
def tenants(transactional_db, live_stack) -> dict[str, Any]:
    attacker = UserFactory(username="mallory")
    attacker.set_password(PASSWORD)
    attacker.save()
    other = UserFactory(username="bob")
    return {
        "attacker": attacker,
        "attacker_key": api_key_create(user=attacker, name="attack")[1],
        "other_key": api_key_create(user=other, name="bystander")[1],
    }


@pytest.fixture
def mallory(live_stack, tenants) -> Any:
    with httpx.Client(
        base_url=live_stack.base_url, headers={"X-API-Key": tenants["attacker_key"]}, timeout=60
    ) as client:
        yield client


def _timed(call: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started


def _sign_in(client: httpx.Client, live_stack: Any, username: str) -> None:
    login = client.get("/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text).group(1)
    signed_in = client.post(
        "/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
        headers={"Referer": live_stack.url("/login/")},
    )
    assert signed_in.status_code == 302, signed_in.text[:500]


def test_catastrophic_schema_pattern_is_linear_on_save_submit_preview_and_form(
    live_stack, tenants, mallory
):
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": EVIL}}}
    template = {"slug": "redos", "name": "ReDoS", "html": "<p>{{name}}</p>", "schema": schema}
    with Bystander(live_stack.base_url, tenants["other_key"]) as bystander:
        lookahead = {
            **template,
            "slug": "lookahead",
            "schema": {"properties": {"x": {"pattern": "^(?=a)(a+)+$"}}},
        }
        refused, refused_in = _timed(lambda: mallory.post("/api/v1/templates/", json=lookahead))
        saved, saved_in = _timed(lambda: mallory.post("/api/v1/templates/", json=template))
        sample = {**template, "slug": "redos-sample", "sample_data": {"name": LONG}}
        bad_sample, bad_sample_in = _timed(lambda: mallory.post("/api/v1/templates/", json=sample))
        submit, submit_in = _timed(
            lambda: mallory.post(
                "/api/v1/generate-pdf-async", json={"template": "redos", "data": {"name": LONG}}
            )
        )
        preview, preview_in = _timed(
            lambda: mallory.post("/api/v1/templates/redos/preview", json={"data": {"name": LONG}})
        )
        with httpx.Client(base_url=live_stack.base_url, timeout=60) as browser:
            _sign_in(browser, live_stack, "mallory")
            page = browser.get("/reports/new/redos/")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            form, form_in = _timed(
                lambda: browser.post(
                    "/reports/new/redos/",
                    data={
                        "data": f'{{"name": "{LONG}"}}',
                        "page_size": "A4",
                        "orientation": "portrait",
                        "csrfmiddlewaretoken": token,
                    },
                    headers={"Referer": live_stack.url("/reports/new/redos/")},
                )
            )
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_schema")
    assert "RE2" in refused.json()["error"]
    assert saved.status_code == 201  # RE2 runs this pattern in linear time: no need to refuse
    assert (bad_sample.status_code, bad_sample.json()["code"]) == (400, "invalid_data")
    assert (submit.status_code, submit.json()["code"]) == (400, "invalid_data")
    assert "does not match" in submit.json()["error"]
    assert (preview.status_code, preview.json()["code"]) == (400, "invalid_data")
    assert form.status_code == 400
    assert "does not match" in form.text
    for took in (refused_in, saved_in, bad_sample_in, submit_in, preview_in, form_in):
        assert took < 1.0, (refused_in, saved_in, bad_sample_in, submit_in, preview_in, form_in)
    bystander.assert_stayed_fast()
    print(
        f"\nReDoS: save {saved_in:.3f} s, submit {submit_in:.3f} s, preview {preview_in:.3f} s,"
        f" form {form_in:.3f} s; {bystander.summary()}"
    )


JINJA_BOMBS = [
    '{{ "%2000000000s" % "x" }}',
    '{{ "{:>2000000000}".format("x") }}',
    '{{ "x".ljust(2000000000) }}',
    '{{ "x"|center(2000000000) }}',
    '{{ "a\nb"|indent(2000000000) }}',
    '{{ "%2000000000s"|format("x") }}',
    # Doubling a string past the render's memory ceiling: no single width to bound.
    '{% set ns = namespace(x="a" * 10000000) %}'
    "{% for i in range(40) %}{% set ns.x = ns.x ~ ns.x %}{% endfor %}{{ ns.x|length }}",
]


def test_jinja_allocation_bombs_fail_with_a_limit_and_the_worker_survives(
    live_stack, tenants, mallory
):
    with Bystander(live_stack.base_url, tenants["other_key"]) as bystander:
        started = time.perf_counter()
        urls = [
            mallory.post(
                "/api/v1/generate-pdf-async", json={"html_template": bomb, "engine": "jinja2"}
            ).json()["status_url"]
            for bomb in JINJA_BOMBS
        ]
        jobs = [wait_for_status(mallory, url, until=TERMINAL) for url in urls]
        took = time.perf_counter() - started
        after = mallory.post(
            "/api/v1/generate-pdf-async",
            json={"html_template": "<p>{{ 6 * 7 }}</p>", "engine": "jinja2"},
        ).json()
        survivor = wait_for_status(mallory, after["status_url"], until=TERMINAL)
    for job in jobs:
        assert (job["status"], job["error_code"], job["attempts"]) == (
            "failed",
            "limit_exceeded",
            1,
        ), job
    assert "wider than the 1000 allowed" in jobs[0]["error"]
    assert "MB of memory allowed" in jobs[-1]["error"]
    assert survivor["status"] == "completed"  # the worker process lived through all of it
    assert took < 60
    bystander.assert_stayed_fast()
    print(
        f"\nJinja bombs: {len(jobs)} failed with limit_exceeded in {took:.1f} s; "
        f"{bystander.summary()}"
    )


def test_one_chart_repeated_thousands_of_times_fails_before_it_is_inlined(
    live_stack, tenants, mallory
):
    spec = {
        "data": {"values": [{"a": i, "b": i * i} for i in range(50)]},
        "mark": "bar",
        "encoding": {
            "x": {"field": "a", "type": "ordinal"},
            "y": {"field": "b", "type": "quantitative"},
        },
        "width": 600,
        "height": 400,
    }
    with Bystander(live_stack.base_url, tenants["other_key"]) as bystander:
        body = mallory.post(
            "/api/v1/generate-pdf-async",
            json={
                "html_template": "{{#each rows}}{{chart ../spec}}{{/each}}",
                "data": {"spec": spec, "rows": list(range(5000))},
            },
        ).json()
        job, took = _timed(lambda: wait_for_status(mallory, body["status_url"], until=TERMINAL))
    assert (job["status"], job["error_code"]) == ("failed", "limit_exceeded"), job
    assert "each use of a chart counts" in job["error"]
    assert took < 30
    bystander.assert_stayed_fast()
    print(f"\nChart repetition: failed in {took:.1f} s; {bystander.summary()}")


def _raw_post(live_stack: Any, head: bytes, body_chunks: int) -> tuple[bytes, float, int]:
    """Send a request by hand, streaming up to `body_chunks` 64 KB chunks until the server
    answers; return (response head, seconds to the answer, body bytes sent)."""
    host, port = live_stack.base_url.removeprefix("http://").split(":")
    chunk = b"x" * 65536
    framed = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    pending, left, sent, answer = memoryview(b""), body_chunks, 0, b""
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        started = time.perf_counter()
        sock.sendall(head)
        sock.setblocking(False)
        ends = time.monotonic() + 60
        while b"\r\n\r\n" not in answer and time.monotonic() < ends:
            want_write = [sock] if (pending or left) else []
            readable, writable, _ = select.select([sock], want_write, [], 1)
            if readable:
                more = sock.recv(65536)
                if not more:
                    break
                answer += more
            elif writable:
                if not pending:
                    pending, left = memoryview(framed), left - 1
                try:
                    written = sock.send(pending)
                except (BrokenPipeError, ConnectionResetError):
                    pending, left = memoryview(b""), 0  # the server hung up; read its answer
                    continue
                pending, sent = pending[written:], sent + written
        return answer, time.perf_counter() - started, sent


def test_an_unauthenticated_huge_body_is_refused_before_it_is_read(live_stack, tenants):
    declared, declared_in, _ = _raw_post(
        live_stack,
        b"POST /api/v1/generate-pdf-async HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n",
        body_chunks=0,
    )
    with Bystander(live_stack.base_url, tenants["other_key"]) as bystander:
        streamed, streamed_in, sent = _raw_post(
            live_stack,
            b"POST /api/v1/generate-pdf-async HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
            body_chunks=16_000,  # a gigabyte, if nobody stopped it
        )
    assert declared.startswith(b"HTTP/1.1 413")
    assert declared_in < 1.0
    # Nobody known sends it: refused once past the anonymous allowance (64 KB), 401.
    assert streamed.startswith(b"HTTP/1.1 401")
    assert sent < 64 * 1024 * 1024  # cut off near the limit, nowhere near a gigabyte
    assert streamed_in < 10
    bystander.assert_stayed_fast()
    print(
        f"\nBody cap: declared 10 GB refused in {declared_in:.3f} s; chunked stream refused "
        f"after {sent >> 20} MB in {streamed_in:.2f} s; {bystander.summary()}"
    )


def test_a_callback_receiver_dripping_bytes_is_cut_off_and_renders_go_on(
    live_stack, tenants, mallory
):
    from jobs.models import PdfJob
    from tests.jobs.test_webhook_transport import _Server

    drip = _Server(body_bytes=100_000, drip=1.0)  # would take a day to answer
    try:
        with Bystander(live_stack.base_url, tenants["other_key"]) as bystander:
            body = mallory.post(
                "/api/v1/generate-pdf-async",
                json={"html_template": "<p>hook</p>", "callback_url": drip.url},
            ).json()
            job = wait_for_status(mallory, body["status_url"], until=TERMINAL)
            started = time.monotonic()
            row = PdfJob.objects.get(job_id=body["job_id"])
            while not row.callback_error and time.monotonic() - started < 30:
                time.sleep(0.2)
                row.refresh_from_db()
            cut_off_after = time.monotonic() - started
    finally:
        drip.server.shutdown()
    assert job["status"] == "completed"
    assert "no complete answer within 5 s" in row.callback_error  # CALLBACK_TIMEOUT_SECONDS
    assert cut_off_after < 15
    bystander.assert_stayed_fast()  # its renders ran while the callback was held
    print(f"\nDripping callback: cut off after {cut_off_after:.1f} s; {bystander.summary()}")


def test_previews_of_giant_or_slow_templates_run_on_the_preview_queue_bounded(
    live_stack, tenants, mallory
):
    from PIL import Image

    giant = {
        "slug": "giant-page",
        "name": "Giant page",
        "html": "<p>tall</p>",
        # A later @page rule than the options' own: the page really is 12.5 m tall.
        "css": "@page { margin: 1cm; } @page { size: 10mm 12500mm; }",
    }
    slow = {
        "slug": "slow-layout",
        "name": "Slow",
        "html": "<table>{{#each rows}}<tr><td>{{this}}</td><td>{{../cell}}</td></tr>{{/each}}"
        "</table>",
        "sample_data": {"rows": list(range(30_000)), "cell": "cell " * 20},
    }
    for template in (giant, slow):
        assert mallory.post("/api/v1/templates/", json=template).status_code == 201
    with Bystander(live_stack.base_url, tenants["other_key"]) as bystander:
        tall, tall_in = _timed(
            lambda: mallory.post("/api/v1/templates/giant-page/preview", json={"data": {}})
        )
        late, late_in = _timed(lambda: mallory.post("/api/v1/templates/slow-layout/preview"))
    assert tall.status_code == 200, tall.text
    image = Image.open(io.BytesIO(tall.content))
    assert image.width * image.height <= 4_000_000  # PDF_PREVIEW_MAX_PIXELS
    assert image.height > 50 * image.width
    assert tall_in < 10
    assert (late.status_code, late.json()["code"]) == (400, "limit_exceeded")
    assert late_in < 25  # PDF_PREVIEW_MAX_SECONDS (10) on the preview worker, then the answer
    bystander.assert_stayed_fast()
    print(
        f"\nPreviews: giant page {image.width}x{image.height} px in {tall_in:.1f} s; slow "
        f"layout refused in {late_in:.1f} s; {bystander.summary()}"
    )
