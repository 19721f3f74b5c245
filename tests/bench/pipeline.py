"""The service end to end against its baselines, measured in one run (issue 12, item 4):
(a) the 50-page sample submit-to-completed vs bare xhtml2pdf, bare WeasyPrint and a cold
Chromium print of the same final HTML; (b) one-page jobs end to end vs report_render alone
and bare xhtml2pdf in as many processes as worker children; (c) submit latency at a fixed
offered rate with the workers busy; (d) worker memory over many jobs, and its peak for the
50-page sample; (e) one-page jobs with the chromium renderer vs a warm bare Playwright loop
(tests/bench/chromium_pipeline.py)."""

from __future__ import annotations

import asyncio
import io
import multiprocessing
import os
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import psutil

from tests.bench import child_account, cpu_account

BASE_DIR = Path(__file__).resolve().parents[2]
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0", "false")
CHILDREN = int(os.environ.get("WORKER_CONCURRENCY", "2"))
# The Procfile's default layout: two uvicorn processes beside the worker.
WEB_PROCESSES = int(os.environ.get("WEB_CONCURRENCY", "2"))
ONE_PAGE_JOBS = 60 if QUICK else 200
SOAK_JOBS = 300 if QUICK else 2000
RATE = float(os.environ.get("BENCH_SUBMIT_RATE", "100"))
RATE_SECONDS = 4 if QUICK else 10
# Part (c)'s backlog rate when part (b) did not measure the service's (jobs/s, above any
# one-page rate measured on two cores).
UNMEASURED_RATE = 40.0
# Which sections run: BENCH_PIPELINE_PARTS=b runs only the one-page throughput.
PARTS = os.environ.get("BENCH_PIPELINE_PARTS", "abcde")
TERMINAL = {"completed", "failed", "cancelled"}
# Groups of the CPU accounts (process_groups); a submit costs the first three.
WEB_GROUP = f"web ({WEB_PROCESSES} uvicorn)"
POSTGRES_GROUP = "PostgreSQL backends of this database"
REDIS_GROUP = "redis-server"
SUBMIT_GROUPS = (WEB_GROUP, POSTGRES_GROUP, REDIS_GROUP)


@dataclass
class Results:
    rows: list[tuple[str, str]] = field(default_factory=list)

    def add(self, name: str, value: str) -> None:
        self.rows.append((name, value))
        print(f"  {name:70} {value}", flush=True)


def _django() -> None:
    import logging

    import django

    for noisy in ("httpx", "weasyprint", "weasyprint.progress", "fontTools"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    django.setup()


def final_html(slug: str, *, vector: bool = False) -> str:
    """The sample's document as xhtml2pdf gets it (template run, charts drawn), or, with
    `vector`, as WeasyPrint and Chromium get it (SVG charts, their document)."""
    _django()
    from rendering.charts import charts_embed
    from rendering.engines import engine_render
    from rendering.layout import build_document
    from rendering.options import parse_options
    from rendering.renderers.document import html_document
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    html, css, data = sample_files(slug)
    limits, options = limits_from_settings(), parse_options({})
    body, _ = charts_embed(engine_render("handlebars", html, data, limits), vector=vector)
    if not vector:
        return build_document(body_html=body, css=css, options=options)
    return html_document(
        body_html=body, css=css, options=options, font_url=lambda path: path.resolve().as_uri()
    )


def _bare_invoices(count: int) -> tuple[int, float]:
    """`count` invoices laid out by bare xhtml2pdf from their final HTML (the template run
    and charts done once, before the clock): the renderer's own pace; their CPU."""
    from xhtml2pdf import pisa

    document = final_html("invoice")
    cpu = time.process_time()
    for _ in range(count):
        pisa.pisaDocument(document, dest=io.BytesIO(), encoding="utf-8")
    return count, time.process_time() - cpu


def pool_rate(
    task: Callable[..., tuple[int, float]], args: tuple[Any, ...], jobs: int, *, warm: int = 3
) -> tuple[float, float]:
    """PDFs/s of `task(*args, count)` (which answers the count and its CPU seconds) in
    CHILDREN spawned processes sharing `jobs`, each warmed with `warm` first, and the CPU
    seconds a PDF took in them."""
    run = partial(task, *args)
    # Spawned, not forked: this process has threads (httpx, the CPU sampler).
    with ProcessPoolExecutor(CHILDREN, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(run, [warm] * CHILDREN))  # imports, fonts, a browser
        started = time.perf_counter()
        runs = list(pool.map(run, [jobs // CHILDREN] * CHILDREN))
        elapsed = time.perf_counter() - started
    done = sum(count for count, _ in runs)
    return done / elapsed, sum(cpu for _, cpu in runs) / done


def _clock(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def bare_xhtml2pdf(document: str) -> float:
    from xhtml2pdf import pisa

    return _clock(lambda: pisa.pisaDocument(document, dest=io.BytesIO(), encoding="utf-8"))


def bare_weasyprint(document: str) -> float | None:
    try:
        import weasyprint
    except ImportError:
        return None
    return _clock(lambda: weasyprint.HTML(string=document, base_url=str(BASE_DIR)).write_pdf())


def cold_chromium(document: str, var: Path) -> float | None:
    """A new browser process printing the file: start-up included, as a cold print pays."""
    source, out = var / "sample.html", var / "chromium.pdf"
    source.write_text(document, encoding="utf-8")
    args = [
        "chromium",
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        f"--print-to-pdf={out}",
        "--no-pdf-header-footer",
        source.as_uri(),
    ]
    try:
        seconds = _clock(lambda: subprocess.run(args, capture_output=True, timeout=120, check=True))
    except (OSError, subprocess.SubprocessError):
        return None
    return seconds if out.exists() else None


def _render_invoices(count: int) -> tuple[int, float, dict[str, float]]:
    """`count` invoices rendered; their CPU, and the counters the worker children keep of
    their renders (child_account.RenderCounters)."""
    _django()
    from rendering.options import parse_options
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    html, css, data = sample_files("invoice")
    source = TemplateSource(engine="handlebars", html=html, css=css)
    options, limits = parse_options({}), limits_from_settings()
    counters = dict.fromkeys(child_account.COUNTERS, 0.0)
    cpu = time.process_time()
    for _ in range(count):
        with child_account.RenderCounters(counters):
            report_render(source=source, data=data, options=options, limits=limits)
    return count, time.process_time() - cpu, counters


def renderer_throughput(jobs: int, processes: int) -> tuple[float, float, dict[str, float]]:
    """PDFs/s of report_render alone, `processes` processes sharing `jobs` invoices, the
    CPU seconds a PDF took in them, and their render counters a PDF."""
    # Spawned, not forked: this process has threads (httpx, the RSS sampler) whose locks a
    # fork could copy held.
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_render_invoices, [2] * processes))  # warm: imports, fonts
        started = time.perf_counter()
        runs = list(pool.map(_render_invoices, [jobs // processes] * processes))
        elapsed = time.perf_counter() - started
        done = sum(count for count, _, _ in runs)
        counters = {key: sum(run[2][key] for run in runs) / done for key in child_account.COUNTERS}
        return done / elapsed, sum(cpu for _, cpu, _ in runs) / done, counters


def _ts(value: str | datetime) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


class Api:
    def __init__(self, base: str, key: str) -> None:
        self.client = httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=60)
        self.base, self.key = base, key

    def submit(self, body: dict) -> str:
        response = self.client.post("/api/v1/generate-pdf-async", json=body)
        if response.status_code != 202:
            raise RuntimeError(f"submit: {response.status_code} {response.text[:300]}")
        return response.json()["job_id"]

    def job(self, job_id: str) -> dict:
        return self.client.get(f"/api/v1/jobs/{job_id}").json()

    def wait(self, job_ids: list[str], timeout: float = 600, every: float = 0.25) -> list[dict]:
        """Until every job is final; their rows. Read from the database, one query each
        `every` seconds: polling each job over HTTP would take the web process's CPU
        from the workers being measured. A single timed job is polled every 20 ms, so the
        poll adds ~10 ms to its submit-to-completed, not up to 250."""
        from jobs.models import PdfJob

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = {
                str(row["job_id"]): row
                for row in PdfJob.objects.filter(job_id__in=job_ids).values(
                    "job_id", "status", "created_at", "completed_at", "error"
                )
            }
            if all(row["status"] in TERMINAL for row in rows.values()) and len(rows) == len(
                set(job_ids)
            ):
                failed = [row for row in rows.values() if row["status"] != "completed"]
                if failed:
                    raise RuntimeError(f"{len(failed)} jobs did not complete: {failed[0]}")
                return [rows[job_id] for job_id in job_ids]
            time.sleep(every)
        raise RuntimeError(f"jobs not finished after {timeout} s")


def cmdline(process: psutil.Process) -> str:
    """The process's command line; empty once it is gone, or a zombie (a browser's exited
    renderer, part (e))."""
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def worker_children(worker: subprocess.Popen[bytes]) -> list[psutil.Process]:
    """The pool children of a Celery worker (its main process forks them)."""
    return [
        child
        for child in psutil.Process(worker.pid).children(recursive=True)
        if "celery" in cmdline(child)
    ]


def template_processes(children: list[psutil.Process]) -> cpu_account.Finder:
    """The V8 processes the worker children's Handlebars renders run in
    (rendering/engines/v8_process.py): replaced every 100 renders, so sampled."""

    def find() -> list[psutil.Process]:
        found = []
        for child in children:
            try:
                found += [p for p in child.children() if V8_CHILD in cmdline(p)]
            except psutil.Error:  # gone meanwhile
                continue
        return found

    return find


V8_CHILD = "v8_child.py"
V8_GROUP = "V8 template processes of the children (sampled)"


def rss_mib(processes: list[psutil.Process]) -> list[float]:
    values = []
    for proc in processes:
        try:
            values.append(proc.memory_info().rss / 2**20)
        except psutil.Error:
            values.append(0.0)
    return values


@contextmanager
def peak_rss(worker: subprocess.Popen[bytes]) -> Iterator[list[float]]:
    """Sample the worker children's RSS every 50 ms; yields [peak MiB] once done."""
    peak = [0.0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.05):
            peak[0] = max([peak[0], *rss_mib(worker_children(worker))])

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        stop.set()
        thread.join()


async def _offered_load(
    base: str, key: str, body: dict, rate: float, seconds: float
) -> list[float]:
    """Open loop: a submit every 1/rate s whatever the answers do; each one's latency."""
    latencies: list[float] = []
    async with httpx.AsyncClient(
        base_url=base,
        headers={"X-API-Key": key},
        timeout=30,
        limits=httpx.Limits(max_connections=200),
    ) as client:

        async def one() -> None:
            started = time.perf_counter()
            response = await client.post("/api/v1/generate-pdf-async", json=body)
            if response.status_code == 202:
                latencies.append(time.perf_counter() - started)

        tasks = []
        start = time.perf_counter()
        for index in range(int(rate * seconds)):
            delay = start + index / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one()))
        await asyncio.gather(*tasks)
    return latencies


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def run(
    *,
    api: Api,
    web: subprocess.Popen[bytes],
    worker: subprocess.Popen[bytes],
    callbacks: subprocess.Popen[bytes],
    var: Path,
    purge: Callable[[], None],
) -> Results:
    results = Results()
    _django()
    from reports.samples import sample_files

    invoice = {"template": "invoice", "data": sample_files("invoice")[2]}
    review = {"template": "operations-review", "data": sample_files("operations-review")[2]}

    if "a" in PARTS:
        fifty_pages(api=api, worker=worker, var=var, review=review, results=results)
    service_rate = 0.0
    if "b" in PARTS:
        service_rate = one_page_throughput(
            api=api,
            web=web,
            worker=worker,
            callbacks=callbacks,
            invoice=invoice,
            results=results,
            var=var,
        )
    if "c" in PARTS:
        submit_latency(
            api=api,
            groups=process_groups(web=web, worker=worker, callbacks=callbacks),
            worker=worker,
            invoice=invoice,
            service_rate=service_rate,
            purge=purge,
            results=results,
        )
    if "d" in PARTS:
        soak(api=api, worker=worker, invoice=invoice, results=results)
    if "e" in PARTS:
        from tests.bench.chromium_pipeline import chromium_throughput

        chromium_throughput(
            api=api, web=web, worker=worker, callbacks=callbacks, invoice=invoice, results=results
        )
    return results


def fifty_pages(
    *, api: Api, worker: subprocess.Popen[bytes], var: Path, review: dict, results: Results
) -> None:
    print("(a) the 50-page sample: service vs bare renderers on the same final HTML", flush=True)
    document = final_html("operations-review")
    # Warm every child (chart cache, fonts, imports): one job each, at once.
    api.wait([api.submit(review) for _ in range(CHILDREN)])
    with peak_rss(worker) as peak:
        started = time.perf_counter()
        state = api.wait([api.submit(review)], every=0.02)[0]
        service = time.perf_counter() - started
    server = (_ts(state["completed_at"]) - _ts(state["created_at"])).total_seconds()
    vector = final_html("operations-review", vector=True)  # SVG charts, as they get it
    xhtml = bare_xhtml2pdf(document)
    weasy = bare_weasyprint(vector)
    chromium = cold_chromium(vector, var)
    results.add("service: submit to completed seen by the client", f"{service:6.2f} s")
    results.add("service: created_at to completed_at", f"{server:6.2f} s")
    results.add(
        "bare xhtml2pdf (one process)", f"{xhtml:6.2f} s   service = {service / xhtml:.2f}x"
    )
    if weasy:
        results.add(
            "bare WeasyPrint (one process)", f"{weasy:6.2f} s   service = {service / weasy:.2f}x"
        )
    if chromium:
        results.add(
            "cold Chromium --print-to-pdf",
            f"{chromium:6.2f} s   service = {service / chromium:.2f}x",
        )
    results.add("worker child peak RSS during the 50-page job", f"{peak[0]:6.0f} MiB")
    # The same sample on the other renderers: WeasyPrint chunked, Chromium whole (warm).
    for renderer, bare, name in (
        ("weasyprint", weasy, "bare WeasyPrint"),
        ("chromium", chromium, "cold Chromium"),
    ):
        job = {**review, "renderer": renderer}
        api.wait([api.submit(job) for _ in range(CHILDREN)])  # warm: fonts, the browser
        started = time.perf_counter()
        api.wait([api.submit(job)], every=0.02)
        seconds = time.perf_counter() - started
        versus = f"   = {seconds / bare:.2f}x {name}" if bare else ""
        results.add(
            f"service, renderer {renderer}: submit to completed", f"{seconds:6.2f} s{versus}"
        )


def submit_latency(
    *,
    api: Api,
    groups: dict[str, cpu_account.Finder],
    worker: subprocess.Popen[bytes],
    invoice: dict,
    service_rate: float,
    purge: Callable[[], None],
    results: Results,
) -> None:
    print("(c) submit latency at a fixed offered rate, workers busy", flush=True)
    # A backlog that keeps every worker child rendering for the whole measurement. Without
    # part (b)'s rate (part (c) run alone) it assumes a fast service: a backlog sized for
    # 5 jobs/s drained in half the window, and the "workers busy" latencies were measured
    # beside idle workers (the line's "unfinished at the end" said 0/10).
    backlog_rate = max(service_rate, 5.0) if service_rate else UNMEASURED_RATE
    backlog_size = int(backlog_rate * RATE_SECONDS * 2) + 4 * CHILDREN
    # The target's rate, then lower ones, to find what two cores sustain beside the renders.
    for rate in (RATE, RATE / 2, RATE / 4):
        for niceness in (0, 10):  # the workers as started, then behind the web process
            for proc in [psutil.Process(worker.pid), *worker_children(worker)]:
                proc.nice(niceness)
            with ThreadPoolExecutor(8) as pool:
                backlog = list(pool.map(lambda _: api.submit(invoice), range(backlog_size)))
            time.sleep(1)
            account = cpu_account.CpuAccount(groups)
            account.start()
            latencies = asyncio.run(_offered_load(api.base, api.key, invoice, rate, RATE_SECONDS))
            totals = account.stop()
            from jobs.models import PdfJob

            busy = (
                PdfJob.objects.filter(job_id__in=backlog[-10:]).exclude(status__in=TERMINAL).count()
            )
            results.add(
                f"submit p50 / p99 at {rate:.0f}/s, worker nice {niceness}",
                f"{_pct(latencies, 0.5) * 1000:6.1f} / {_pct(latencies, 0.99) * 1000:.1f} ms"
                f"   ({len(latencies)} submits; {busy}/10 of the backlog unfinished at the end)",
            )
            # What one submit costs the machine (web, its queries, Redis), and what the rate
            # asks of it: the cores the web tier needs beside the renders.
            cost = {g: totals.get(g, 0.0) / max(1, len(latencies)) for g in SUBMIT_GROUPS}
            results.add(
                "  CPU a submit: " + ", ".join(f"{g} {v * 1000:.1f} ms" for g, v in cost.items()),
                f"= {sum(cost.values()) * rate:.2f} cores at {rate:.0f}/s; the workers used "
                f"{_workers_cpu(totals) / account.window:.2f} cores",
            )
            purge()
            time.sleep(2)  # the children finish what they hold


def _workers_cpu(totals: dict[str, float]) -> float:
    return sum(v for g, v in totals.items() if g.startswith(("worker child", "Celery main")))


def soak(*, api: Api, worker: subprocess.Popen[bytes], invoice: dict, results: Results) -> None:
    print(f"(d) worker RSS over {SOAK_JOBS} one-page jobs", flush=True)
    warm = [api.submit(invoice) for _ in range(50)]
    api.wait(warm)
    before = rss_mib(worker_children(worker))
    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(lambda _: api.submit(invoice), range(SOAK_JOBS)))
    api.wait(ids, timeout=1800)
    after = rss_mib(worker_children(worker))
    growth = [(a - b) / b for a, b in zip(after, before, strict=False) if b]
    results.add(
        "worker children RSS after 50 jobs -> after the soak",
        f"{' '.join(f'{b:.0f}' for b in before)} -> {' '.join(f'{a:.0f}' for a in after)} MiB"
        f"   growth max {max(growth, default=0):+.1%}",
    )


def one_page_throughput(
    *,
    api: Api,
    web: subprocess.Popen[bytes],
    worker: subprocess.Popen[bytes],
    callbacks: subprocess.Popen[bytes],
    invoice: dict,
    results: Results,
    var: Path,
) -> float:
    """(b): PDFs/s end to end against report_render alone, and where the cores' time went
    meanwhile (CPU of every process involved, from the first submit to the last completion)."""
    print(f"(b) {ONE_PAGE_JOBS} one-page jobs end to end vs report_render alone", flush=True)
    api.wait([api.submit(invoice) for _ in range(4 * CHILDREN)])  # warm every child
    children = worker_children(worker)
    account = cpu_account.CpuAccount(process_groups(web=web, worker=worker, callbacks=callbacks))
    before = child_account.read(child_account_dir(var))
    account.start()
    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(lambda _: api.submit(invoice), range(ONE_PAGE_JOBS)))
    states = api.wait(ids)
    account.stop()
    time.sleep(0.5)  # the children's last totals reach their files
    after = child_account.read(child_account_dir(var))
    first = min(_ts(s["created_at"]) for s in states)
    last = max(_ts(s["completed_at"]) for s in states)
    service_rate = ONE_PAGE_JOBS / (last - first).total_seconds()
    alone, alone_cpu, alone_counters = renderer_throughput(ONE_PAGE_JOBS, CHILDREN)
    results.add("service, first submit to last completed", f"{service_rate:6.1f} PDFs/s")
    results.add(
        f"report_render alone in {CHILDREN} processes",
        f"{alone:6.1f} PDFs/s   service = {service_rate / alone:.2f}x",
    )
    account.report(cores=os.cpu_count() or CHILDREN, jobs=ONE_PAGE_JOBS, add=results.add)
    results.add("  report_render alone, CPU a PDF", f"{alone_cpu * 1000:6.1f} ms")
    bare, bare_cpu = pool_rate(_bare_invoices, (), ONE_PAGE_JOBS, warm=2)
    results.add(
        f"bare xhtml2pdf in {CHILDREN} processes (the same final HTML)",
        f"{bare:6.1f} PDFs/s   service = {service_rate / bare:.2f}x   "
        f"CPU a PDF {bare_cpu * 1000:.1f} ms",
    )
    tasks = after["tasks"] - before["tasks"]
    if tasks:
        render = (after["render_cpu"] - before["render_cpu"]) / tasks
        task = (after["task_cpu"] - before["task_cpu"]) / tasks
        child_cpu = sum(account.totals()[f"worker child {n}"] for n in range(1, len(children) + 1))
        results.add(
            f"  in the children ({tasks} render tasks), CPU a job",
            f"render {render * 1000:.1f} ms ({render / alone_cpu:.2f}x alone), rest of the "
            f"task {(task - render) * 1000:.1f} ms, outside tasks "
            f"{(child_cpu / tasks - task) * 1000:.1f} ms",
        )
        results.add(
            "  children inherited the glyph map from before the fork", str(after["inherited"])
        )
        per_job = {key: (after[key] - before[key]) / tasks for key in child_account.COUNTERS}
        for label, counters in (("in the children", per_job), ("alone", alone_counters)):
            results.add(
                f"  a render {label}: thread CPU (system), context switches, gen 2 "
                "collections, gc CPU, minor faults",
                f"{counters['render_thread_cpu'] * 1000:.1f} ms "
                f"({counters['render_sys_cpu'] * 1000:.1f} ms), "
                f"{counters['render_vcsw']:.1f} voluntary + {counters['render_ivcsw']:.1f} "
                f"involuntary, {counters['render_gc2']:.2f}, "
                f"{counters['render_gc_cpu'] * 1000:.1f} ms, {counters['render_minflt']:.0f}",
            )
    return service_rate


def process_groups(
    *,
    web: subprocess.Popen[bytes],
    worker: subprocess.Popen[bytes],
    callbacks: subprocess.Popen[bytes],
) -> dict[str, cpu_account.Finder]:
    """Every process the service runs on, grouped as the CPU accounts report them."""
    from django.db import connection

    # config.web and the uvicorn processes it starts (WEB_CONCURRENCY).
    web_processes = [psutil.Process(web.pid), *psutil.Process(web.pid).children(recursive=True)]
    groups: dict[str, cpu_account.Finder] = {WEB_GROUP: cpu_account.fixed(*web_processes)}
    groups["Celery main process"] = cpu_account.fixed(psutil.Process(worker.pid))
    children = worker_children(worker)
    for number, child in enumerate(children, 1):
        groups[f"worker child {number}"] = cpu_account.fixed(child)
    groups[V8_GROUP] = template_processes(children)
    groups["callbacks worker (threads: owner mails)"] = cpu_account.fixed(
        psutil.Process(callbacks.pid)
    )
    groups[POSTGRES_GROUP] = cpu_account.postgres_backends(connection.settings_dict["NAME"])
    groups["PostgreSQL server processes (shared)"] = cpu_account.postgres_server()
    groups[REDIS_GROUP] = cpu_account.listening_on(os.environ["REDIS_URL"])
    groups["bench process (clients, polling)"] = cpu_account.fixed(psutil.Process())
    return groups


def child_account_dir(var: Path) -> Path:
    directory = var / "children"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def median(values: list[float]) -> float:
    return statistics.median(values)
