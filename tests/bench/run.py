"""`make bench`: submit latency against the bare baseline, and render time against bare
xhtml2pdf. Loopback only, bounded; prints a table for the README."""

from __future__ import annotations

import io
import os
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

BASE_DIR = Path(__file__).resolve().parents[2]
N = int(os.environ.get("BENCH_REQUESTS", "300"))


def _pcts(samples: list[float]) -> tuple[float, float, float]:
    ordered = sorted(samples)
    return (
        statistics.median(ordered) * 1000,
        ordered[int(0.95 * (len(ordered) - 1))] * 1000,
        ordered[int(0.99 * (len(ordered) - 1))] * 1000,
    )


def _timed(client: httpx.Client, method: str, url: str, **kwargs: object) -> float:
    started = time.perf_counter()
    response = client.request(method, url, **kwargs)
    elapsed = time.perf_counter() - started
    if response.status_code >= 400:
        raise RuntimeError(f"{method} {url}: {response.status_code} {response.text[:200]}")
    return elapsed


def bench_http(var: Path) -> list[tuple[str, float, float, float]]:
    from config import embedded_redis
    from tests.processes import free_port, start, stop

    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DJANGO_DEBUG="false",
        VAR_DIR=str(var),
        DATABASE_URL=os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{var / 'db.sqlite3'}"),
    )
    env["REDIS_URL"] = embedded_redis.start(var / "redis")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"],
        cwd=BASE_DIR,
        env=env,
        check=True,
    )
    key = subprocess.run(
        [sys.executable, "manage.py", "create_api_key", "bench"],
        cwd=BASE_DIR,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    port = free_port()
    web = start(
        ["-m", "uvicorn", "config.asgi:application", "--port", str(port), "--log-level", "warning"],
        env=env,
        log=var / "web.log",
    )
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=30) as client:
            for _ in range(100):
                try:
                    client.get("/livez")
                    break
                except httpx.HTTPError:
                    time.sleep(0.2)
            body = {
                "html_template": "<h1>{{title}}</h1>{{#each rows}}<p>{{this}}</p>{{/each}}",
                "data": {"title": "bench", "rows": list(range(50))},
                "engine": "handlebars",
            }
            for _ in range(20):  # warm up
                _timed(client, "GET", "/livez")
                job_id = client.post("/api/v1/generate-pdf-async", json=body).json()["job_id"]
            rows = []
            rows.append(
                (
                    "GET /livez (bare baseline)",
                    *_pcts([_timed(client, "GET", "/livez") for _ in range(N)]),
                )
            )
            rows.append(
                (
                    "POST generate-pdf-async",
                    *_pcts(
                        [
                            _timed(client, "POST", "/api/v1/generate-pdf-async", json=body)
                            for _ in range(N)
                        ]
                    ),
                )
            )
            rows.append(
                (
                    "GET jobs/{id}",
                    *_pcts([_timed(client, "GET", f"/api/v1/jobs/{job_id}") for _ in range(N)]),
                )
            )
            with ThreadPoolExecutor(8) as pool:
                started = time.perf_counter()
                list(
                    pool.map(
                        lambda _: _timed(client, "POST", "/api/v1/generate-pdf-async", json=body),
                        range(N),
                    )
                )
                rate = N / (time.perf_counter() - started)
            rows.append((f"POST, 8 concurrent clients: {rate:.0f} submits/s", 0, 0, 0))
            return rows
    finally:
        stop(web)
        embedded_redis.stop()


def bench_render() -> list[tuple[str, float]]:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    django.setup()
    from xhtml2pdf import pisa

    from rendering.charts import charts_embed
    from rendering.engines import get_engine
    from rendering.layout import build_document
    from rendering.options import parse_options
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    limits = limits_from_settings()

    rows = []
    for slug in ("invoice", "sales-report", "operations-review"):
        html, css, data = sample_files(slug)
        options = parse_options({})
        body, _ = charts_embed(get_engine("handlebars").render(html, data, limits), limits=limits)
        document = build_document(body_html=body, css=css, options=options)

        def bare(document: str = document) -> None:
            pisa.pisaDocument(document, dest=io.BytesIO(), encoding="utf-8")

        def ours(html: str = html, css: str = css, data: dict = data, options=options) -> None:
            report_render(
                source=TemplateSource(engine="handlebars", html=html, css=css),
                data=data,
                options=options,
                limits=limits,
            )

        for fn in (bare, ours):
            fn()  # warm
        runs = 5
        bare_s = min(_clock(bare) for _ in range(runs))
        ours_s = min(_clock(ours) for _ in range(runs))
        rows.append((f"{slug}: bare xhtml2pdf of the final HTML", bare_s))
        rows.append((f"{slug}: report_render (template, charts, policy, stamping)", ours_s))
    return rows


def _clock(fn: object) -> float:
    started = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - started


def main() -> int:
    var = BASE_DIR / "var" / "bench"
    shutil.rmtree(var, ignore_errors=True)
    var.mkdir(parents=True)
    http_rows = bench_http(var)
    print(f"HTTP, one uvicorn process, {N} sequential requests each (ms):")
    print(f"{'':45} {'p50':>7} {'p95':>7} {'p99':>7}")
    baseline = http_rows[0][1]
    for name, p50, p95, p99 in http_rows:
        if p50:
            print(
                f"{name:45} {p50:7.2f} {p95:7.2f} {p99:7.2f}   p50 = {p50 / baseline:.1f}x baseline"
            )
        else:
            print(name)
    print("\nRendering, best of 5 (s):")
    render_rows = bench_render()
    for (bare_name, bare_s), (ours_name, ours_s) in zip(
        render_rows[::2], render_rows[1::2], strict=True
    ):
        print(f"{bare_name:62} {bare_s:6.3f}")
        print(f"{ours_name:62} {ours_s:6.3f}   = {ours_s / bare_s:.2f}x bare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
