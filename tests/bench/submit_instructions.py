"""`python -m tests.bench.submit_instructions`: the CPU instructions one submit costs the web
process, counted by valgrind's callgrind (the same count whatever the machine's load).

It runs the ASGI application in process (no sockets, no uvicorn) and posts the `invoice`
sample WARM times to warm up and then SUBMITS times; a second run with no timed submits is
subtracted, so what is left is the submits' own work. BENCH_BODY picks the body: `inline`
(default: the sample's Handlebars source as `html_template`) or `template` (the seeded
stored template `invoice` by slug, so its look-up and JSON Schema check count too).
BENCH_CLIENT picks what posts them: `httpx` (default: httpx's ASGITransport, whose own work,
about a tenth of the count, is in the number) or `raw` (a hand-made ASGI call: the scope, one
body message and a list of what is sent, so the count is nearly all the server's).
The application is Django's handler as config.asgi serves it (core/asgi_handler.py).
Needs `valgrind` (Debian package).
Uses BENCH_DATABASE_URL / BENCH_REDIS_URL like `make bench`, else SQLite and an embedded Redis."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.bench.run import BASE_DIR, bench_env

SUBMITS = int(os.environ.get("BENCH_SUBMITS", "20"))
WARM = int(os.environ.get("BENCH_WARM", "5"))


async def _raw_call(app: Any, scope: dict, payload: bytes) -> tuple[int, bytes]:
    """One request through the ASGI application: its status and body."""
    sent: list[dict] = []
    request = [{"type": "http.request", "body": payload, "more_body": False}]
    done = asyncio.Event()

    async def receive() -> dict:
        if request:
            return request.pop()
        await done.wait()  # no disconnect: Django cancels this listener at the end
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(dict(scope), receive, send)
    done.set()
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def _child() -> None:
    """Inside valgrind: WARM submits, then SUBMITS more."""
    import django

    django.setup()
    import httpx

    from config.asgi import django_asgi_app as app
    from reports.samples import sample_files

    html, _, data = sample_files("invoice")
    body: dict = {"html_template": html, "data": data, "engine": "handlebars"}
    if os.environ.get("BENCH_BODY") == "template":
        body = {"template": "invoice", "data": data}
    key = os.environ["BENCH_KEY"]

    async def submits_raw(count: int) -> None:
        payload = json.dumps(body).encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/api/v1/generate-pdf-async",
            "raw_path": b"/api/v1/generate-pdf-async",
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"127.0.0.1"),
                (b"x-api-key", key.encode()),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 80),
        }
        for _ in range(count):
            status, answer = await _raw_call(app, scope, payload)
            if status != 202:
                raise SystemExit(f"submit: {status} {answer[:300]!r}")

    async def submits(count: int) -> None:
        if os.environ.get("BENCH_CLIENT") == "raw":
            await submits_raw(count)
            return
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1", headers={"X-API-Key": key}
        ) as client:
            for _ in range(count):
                response = await client.post("/api/v1/generate-pdf-async", json=body)
                if response.status_code != 202:
                    raise SystemExit(f"submit: {response.status_code} {response.text[:300]}")

    asyncio.run(submits(WARM))
    asyncio.run(submits(int(os.environ["BENCH_SUBMITS"])))


def main() -> int:
    if os.environ.get("BENCH_CHILD"):
        _child()
        return 0
    if not shutil.which("valgrind"):
        print("submit_instructions: valgrind is not installed (apt-get install valgrind)")
        return 1
    var = Path(tempfile.mkdtemp(prefix="bench-instr-"))
    env, key = bench_env(var)
    env.update(BENCH_CHILD="1", BENCH_KEY=key, PYTHONMALLOC="malloc")
    totals = []
    for submits in (0, SUBMITS):
        out = var / f"callgrind.{submits}.out"
        run_env = dict(env, BENCH_SUBMITS=str(submits))
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-m",
                "tests.bench.submit_instructions",
            ],
            cwd=BASE_DIR,
            env=run_env,
            check=True,
            capture_output=True,
        )
        summary = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        if not summary:
            raise SystemExit(f"no totals in {out}")
        totals.append(int(summary.group(1)))
    per_submit = (totals[1] - totals[0]) / SUBMITS
    body = os.environ.get("BENCH_BODY", "inline")
    client = os.environ.get("BENCH_CLIENT", "httpx")
    print(
        f"{per_submit / 1e6:.1f} M instructions a submit ({body} body, {client} client, "
        f"{SUBMITS} submits, {WARM} warm)"
    )
    shutil.rmtree(var, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
