"""`make bench`: submit latency against the bare baseline, render time against bare
xhtml2pdf, and the service end to end against its renderers (tests/bench/pipeline.py).
Loopback only, bounded (BENCH_QUICK=1 for a shorter run); prints the tables of docs/benchmarks/."""

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
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0", "false")


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


def bench_env(var: Path) -> tuple[dict[str, str], str]:
    """The environment of the processes the bench starts (migrated), and an API key."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DJANGO_DEBUG="false",
        VAR_DIR=str(var),
        MEDIA_ROOT=str(var / "media"),
        DATABASE_URL=os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{var / 'db.sqlite3'}"),
        # Raw submit and read latency: the per-key rate and in-flight quotas stay out of it.
        API_RATE_SUBMIT="1000000/min",
        API_RATE_STATUS_READ="1000000/min",
        PDF_MAX_JOBS_IN_FLIGHT="1000000",
        PYTHONUNBUFFERED="1",
    )
    if os.environ.get("BENCH_REDIS_URL"):
        env["REDIS_URL"] = os.environ["BENCH_REDIS_URL"]
    else:
        from config import embedded_redis

        env["REDIS_URL"] = embedded_redis.start(var / "redis")
    for command in (["migrate", "-v", "0"], ["seed_demo"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=BASE_DIR,
            env=env,
            check=True,
            capture_output=True,
        )
    key = (var / "demo-api-key").read_text().strip()
    return env, key


def bench_http(env: dict[str, str], key: str, var: Path) -> list[tuple[str, float, float, float]]:
    from tests.processes import free_port, start, stop

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


def bench_render() -> list[tuple[str, float]]:
    from tests.bench.pipeline import _django

    _django()  # WeasyPrint's per-page progress log stays out of the tables
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
        # Interleaved, so a change in the machine's load hits both alike.
        pairs = [(_clock(bare), _clock(ours)) for _ in range(3 if QUICK else 5)]
        bare_s = min(b for b, _ in pairs)
        ours_s = min(o for _, o in pairs)
        rows.append((f"{slug}: bare xhtml2pdf of the final HTML", bare_s))
        rows.append((f"{slug}: report_render (template, charts, policy, stamping)", ours_s))
    return rows


def bench_renderers() -> list[tuple[str, dict[str, float]]]:
    """Each sample on each renderer (report_render, warm), and the same final HTML through
    bare WeasyPrint and a cold `chromium --print-to-pdf` (a new browser per document)."""
    return [
        (slug, _renderer_times(slug)) for slug in ("invoice", "sales-report", "operations-review")
    ]


def _renderer_times(slug: str) -> dict[str, float]:
    import tempfile
    from functools import partial

    import weasyprint as bare_weasyprint

    from rendering.charts import charts_embed
    from rendering.engines import get_engine
    from rendering.options import parse_options
    from rendering.renderers import RENDERER_NAMES, chromium, document
    from rendering.renderers.chromium_browser import fontconfig_file, launch_args
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    html, css, data = sample_files(slug)
    options = parse_options({})
    times: dict[str, float] = {}
    for renderer in RENDERER_NAMES:
        ours = partial(
            report_render,
            source=TemplateSource(engine="handlebars", html=html, css=css, renderer=renderer),
            data=data,
            options=options,
            limits=limits_from_settings(),
        )
        ours()  # warm: fonts, the chart cache, the browser
        times[renderer] = min(_clock(ours) for _ in range(3))
    body, _ = charts_embed(get_engine("handlebars").render(html, data), vector=True)
    final = document.html_document(
        body_html=body, css=css, options=options, font_url=lambda path: path.resolve().as_uri()
    )
    bare = partial(lambda text: bare_weasyprint.HTML(string=text).write_pdf(), final)
    times["bare weasyprint"] = min(_clock(bare) for _ in range(3))
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "document.html"
        page.write_text(final, encoding="utf-8")
        command = [
            str(chromium.ChromiumSettings().executable),
            *launch_args(memory_mb=512),
            "--no-pdf-header-footer",
            f"--print-to-pdf={Path(tmp) / 'out.pdf'}",
            page.as_uri(),
        ]
        env = {**os.environ, "FONTCONFIG_FILE": str(fontconfig_file())}
        cold = partial(subprocess.run, command, env=env, check=True, capture_output=True)
        times["cold chromium --print-to-pdf"] = min(_clock(cold) for _ in range(3))
    return times


def _clock(fn: object) -> float:
    started = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - started


def _purge(app: object, queue: str) -> None:
    """Drop the messages still waiting in `queue` (the rows stay queued; nobody waits)."""
    with app.connection_for_write() as connection:  # type: ignore[attr-defined]
        connection.default_channel.queue_purge(queue)


def _vacuum_jobs() -> None:
    """Reclaim the job rows earlier runs deleted. Where autovacuum is off (this machine's
    PostgreSQL), their dead tuples stayed in the table and its indexes, and the submit's
    in-flight count and insert walked them: PostgreSQL's CPU a submit went from 2.0 to
    9-11 ms over a dozen runs of (c) on one database (2026-12-07)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE jobs_pdfjob")


def bench_pipeline(env: dict[str, str], key: str, var: Path) -> None:
    """Web and worker as `make run` starts them, then tests/bench/pipeline.py."""
    from celery import Celery

    from config import devstack
    from tests.bench import pipeline
    from tests.processes import free_port, start, stop, wait_for_worker, worker_args

    pipeline._django()
    from jobs.models import PdfJob

    # The jobs the latency section queued (no worker ran then) would go first otherwise.
    _purge(Celery(broker=env["REDIS_URL"]), "pdf")
    PdfJob.objects.all().delete()  # the bench's own database (BENCH_DATABASE_URL)
    _vacuum_jobs()
    port = free_port()
    # Child recycling off, so (d) sees the memory of the same children all along.
    worker_env = {
        **env,
        "CELERY_WORKER_MAX_TASKS_PER_CHILD": "100000",
        # Each child's render-task and render CPU, for (b) (tests/bench/child_account.py).
        "BENCH_CHILD_ACCOUNT_DIR": str(pipeline.child_account_dir(var)),
    }
    # As the Procfile runs it: config.web, WEB_CONCURRENCY uvicorn processes (2 here).
    web_env = {
        **env,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": str(pipeline.WEB_PROCESSES),
    }
    web = start(["-m", "config.web"], env=web_env, log=var / "pipeline-web.log")
    name = f"bench-{port}"
    # As the Procfile runs them: renders and repair on the prefork children, the mail to a
    # job's owner and webhooks on a thread pool of their own (on these same cores).
    worker = start(
        [
            *worker_args(name=name, concurrency=pipeline.CHILDREN, queues="pdf,maintenance"),
            "--include=tests.bench.child_account",
        ],
        env=worker_env,
        log=var / "pipeline-worker.log",
    )
    callbacks = start(
        [
            *devstack.worker_args(
                queues="callbacks,mail", concurrency=8, name=f"callbacks-{port}", pool="threads"
            ),
            "--without-gossip",
            "--without-mingle",
        ],
        env=env,
        log=var / "pipeline-callbacks.log",
    )
    app = Celery(broker=env["REDIS_URL"])
    try:
        wait_for_worker(app, name, worker, var / "pipeline-worker.log")
        api = pipeline.Api(f"http://127.0.0.1:{port}", key)
        for _ in range(100):
            try:
                api.client.get("/livez")
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        print(
            f"\nEnd to end: {pipeline.WEB_PROCESSES} uvicorn processes (config.web), one worker"
            f" with {pipeline.CHILDREN} children"
            f"{' (QUICK)' if pipeline.QUICK else ''}:"
        )
        pipeline.run(
            api=api,
            web=web,
            worker=worker,
            callbacks=callbacks,
            var=var,
            purge=lambda: _purge(app, "pdf"),
        )
    finally:
        stop(callbacks)
        stop(worker)
        stop(web)
        # The purged backlog's rows stay queued: with the same BENCH_DATABASE_URL the
        # fairness bench's workers would take them as another tenant's jobs.
        PdfJob.objects.all().delete()


def main() -> int:
    var = BASE_DIR / "var" / "bench"
    shutil.rmtree(var, ignore_errors=True)
    var.mkdir(parents=True)
    env, key = bench_env(var)
    # This process reads job rows and renders the baselines: the same database and Redis
    # from its first Django setup on (the render tables set Django up before the pipeline).
    os.environ.update(REDIS_URL=env["REDIS_URL"], DATABASE_URL=env["DATABASE_URL"])
    try:
        if "pipeline" not in sys.argv[1:]:
            _bench_http_and_render(env, key, var)
        bench_pipeline(env, key, var)
    finally:
        _revoke(key)
        if not os.environ.get("BENCH_REDIS_URL"):
            from config import embedded_redis

            embedded_redis.stop()
    return 0


def _revoke(raw_key: str) -> None:
    """Revoke the key seed_demo made for this run: every run makes one, and a database kept
    across runs (BENCH_DATABASE_URL) refused the 21st run its key (the demo workspace's
    API_KEYS_MAX_PER_TENANT)."""
    from tests.bench.pipeline import _django

    _django()
    from accounts.services import api_key_resolve, api_key_revoke

    key = api_key_resolve(raw_key)
    if key is not None:
        api_key_revoke(user=key.user, key_id=key.pk)


def _bench_http_and_render(env: dict[str, str], key: str, var: Path) -> None:
    http_rows = bench_http(env, key, var)
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
    print("\nRendering, best of 5 (3 if QUICK), interleaved (s):")
    render_rows = bench_render()
    for (bare_name, bare_s), (ours_name, ours_s) in zip(
        render_rows[::2], render_rows[1::2], strict=True
    ):
        print(f"{bare_name:62} {bare_s:6.3f}")
        print(f"{ours_name:62} {ours_s:6.3f}   = {ours_s / bare_s:.2f}x bare")
    print("\nRenderers, best of 3 (s; ratio to xhtml2pdf's report_render of the same sample):")
    for slug, times in bench_renderers():
        base = times["xhtml2pdf"]
        cells = "  ".join(
            f"{name} {value:6.3f} ({value / base:.2f}x)" for name, value in times.items()
        )
        print(f"{slug:18} {cells}")


if __name__ == "__main__":
    sys.exit(main())
