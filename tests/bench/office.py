"""`make bench` (office part, issue 41): a one-page Word invoice (engine `docx`) end to end,
submit to completed on one uvicorn and one Celery worker with two children, each job
followed as our client follows it (its Server-Sent Events; every other job polled in the
database every 20 ms instead, as the bench did before), against, in the same run:

- a cold `soffice --headless --convert-to pdf` of the same filled document, a new
  LibreOffice with a fresh profile each time (what a script without a warm office pays),
  target 0.3x;
- a warm conversion alone (`office_convert` in this process's warm LibreOffice, the
  filled document ready), target 1.2x: what the job adds around the conversion;
- and, for where the rest goes, `docx_fill` alone (the tags filled in a forked child, as a
  job fills them) and the fill with the warm conversion: the job's own work.

Embedded Redis and SQLite unless BENCH_REDIS_URL / BENCH_DATABASE_URL (PostgreSQL and
Redis, like the pipeline bench); BENCH_QUICK=1 for fewer jobs and cold starts.
"""

from __future__ import annotations

import base64
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.bench.pipeline import QUICK, Api, Results, _clock, _django, _ts
from tests.bench.run import BASE_DIR, bench_env

JOBS = 10 if QUICK else 40
COLD = 3 if QUICK else 8
TARGET_COLD, TARGET_WARM = 0.3, 1.2


def invoice(number: int) -> tuple[bytes, dict[str, object]]:
    """The Word invoice of the docx tests, and its data with this invoice number (each job
    different: nothing comes from the result cache)."""
    from tests.rendering.docx_files import INVOICE_DATA, invoice_docx

    return invoice_docx(), {**INVOICE_DATA, "number": f"A-{number}", "logo": ""}


def filled_invoice() -> bytes:
    """The invoice as a job fills it: what the two baselines convert."""
    _django()
    from rendering.engines.docx import docx_fill
    from reports.limits import limits_from_settings

    content, data = invoice(1)
    return docx_fill(content, data, limits_from_settings())


def cold_soffice(document: bytes, var: Path) -> float:
    """`soffice --headless --convert-to pdf` of the filled document, in a new LibreOffice
    with a profile it makes first, as a cold conversion pays."""
    from reports.limits import limits_from_settings

    work = Path(tempfile.mkdtemp(prefix="cold-", dir=var))
    try:
        source = work / "invoice.docx"
        source.write_bytes(document)
        command = [
            limits_from_settings().office_path,
            f"-env:UserInstallation={(work / 'profile').as_uri()}",
            "--headless",
            "--norestore",
            "--convert-to",
            "pdf",
            "--outdir",
            str(work),
            str(source),
        ]
        seconds = _clock(
            lambda: subprocess.run(command, capture_output=True, timeout=180, check=True)
        )
        if not (work / "invoice.pdf").is_file():
            raise RuntimeError("the cold soffice wrote no PDF")
        return seconds
    finally:
        shutil.rmtree(work, ignore_errors=True)


def warm_convert(document: bytes, count: int) -> list[float]:
    """`office_convert` alone in this process's warm LibreOffice (started by the first)."""
    from rendering.office import office_convert
    from reports.limits import limits_from_settings

    limits = limits_from_settings()

    def once() -> None:
        office_convert(document, "invoice.docx", timeout=60, limits=limits)

    once()  # start and warm it
    return [_clock(once) for _ in range(count)]


@dataclass
class Timings:
    """Per job, in seconds: submit to completed followed by SSE and polled (alternating
    jobs), the job's created_at to completed_at, the submit's answer, and its completion
    (completed_at) to the client knowing it (both clocks this machine's)."""

    followed: list[float] = field(default_factory=list)
    polled: list[float] = field(default_factory=list)
    server: list[float] = field(default_factory=list)
    submit: list[float] = field(default_factory=list)
    seen_followed: list[float] = field(default_factory=list)
    seen_polled: list[float] = field(default_factory=list)


def end_to_end(api: Api, count: int) -> Timings:
    """Submit to completed of one invoice at a time as the client sees it, and the job's
    created_at to completed_at; the children warm first (two jobs each). Jobs alternate
    between two ways of seeing the end: followed as a client of ours follows a job
    (pdfreports' Job.wait: the job read once, then its Server-Sent Events until it ends),
    and polled in the database every 20 ms, as this bench did before (kept to compare with
    its earlier runs)."""
    from pdfreports import Client

    content, _ = invoice(0)
    template = base64.b64encode(content).decode("ascii")

    def job(number: int) -> dict[str, object]:
        return {"engine": "docx", "template_file": template, "data": invoice(number)[1]}

    api.wait([api.submit(job(n)) for n in range(4)])
    timings = Timings()
    with Client(api.base, api.key, timeout=60) as client:
        for n in range(count * 2):
            started = time.perf_counter()
            job_id = api.submit(job(100 + n))
            timings.submit.append(time.perf_counter() - started)
            if n % 2 == 0:
                client.job(job_id).wait(timeout=120)
                timings.followed.append(time.perf_counter() - started)
                seen, seen_in = time.time(), timings.seen_followed
                row = api.wait([job_id])[0]
            else:
                row = api.wait([job_id], every=0.02)[0]
                timings.polled.append(time.perf_counter() - started)
                seen, seen_in = time.time(), timings.seen_polled
            completed = _ts(row["completed_at"])
            seen_in.append(seen - completed.timestamp())
            timings.server.append((completed - _ts(row["created_at"])).total_seconds())
    return timings


def fill_alone(count: int) -> float:
    """docx_fill of the invoice alone (median): the part of a job before LibreOffice."""
    from rendering.engines.docx import docx_fill
    from reports.limits import limits_from_settings

    content, data = invoice(1)
    limits = limits_from_settings()
    return statistics.median(_clock(lambda: docx_fill(content, data, limits)) for _ in range(count))


def main() -> int:
    from tests.bench.fairness import _stack
    from tests.processes import stop

    var = BASE_DIR / "var" / "bench-office"
    shutil.rmtree(var, ignore_errors=True)
    var.mkdir(parents=True)
    env, key = bench_env(var)
    os.environ.update(REDIS_URL=env["REDIS_URL"], DATABASE_URL=env["DATABASE_URL"])
    results = Results()
    try:
        document = filled_invoice()
        web, worker, base = _stack(env, var, fair=True)
        try:
            print(
                f"\nOne-page Word invoice (engine docx), one worker with two children"
                f"{' (QUICK)' if QUICK else ''}:",
                flush=True,
            )
            timings = end_to_end(Api(base, key), JOBS)
        finally:
            stop(worker)
            stop(web)
        warm = warm_convert(document, JOBS)
        cold = [cold_soffice(document, var) for _ in range(COLD)]
        job, alone, start = (statistics.median(v) for v in (timings.followed, warm, cold))
        results.add(
            f"service, submit to completed (median of {JOBS}, one at a time, followed by SSE)",
            f"{job:6.3f} s",
        )
        results.add(
            f"  the same polled in the database every 20 ms (median of {JOBS}, alternating)",
            f"{statistics.median(timings.polled):6.3f} s   service = "
            f"{statistics.median(timings.polled) / alone:.2f}x warm",
        )
        results.add(
            "  the job's created_at to completed_at (median)",
            f"{statistics.median(timings.server):6.3f} s",
        )
        results.add(
            "  the submit's answer; completed_at to the client knowing it, followed / polled",
            f"{statistics.median(timings.submit):6.3f} s; "
            f"{statistics.median(timings.seen_followed):.3f} s / "
            f"{statistics.median(timings.seen_polled):.3f} s",
        )
        results.add(
            f"cold soffice --headless --convert-to pdf (median of {COLD})",
            f"{start:6.3f} s   service = {job / start:.2f}x (target {TARGET_COLD}x)",
        )
        results.add(
            f"warm office_convert alone (median of {JOBS})",
            f"{alone:6.3f} s   service = {job / alone:.2f}x (target {TARGET_WARM}x)",
        )
        fill = fill_alone(JOBS)
        results.add(
            "  docx_fill alone (median), and with the warm conversion",
            f"{fill:6.3f} s, {fill + alone:.3f} s   service = {job / (fill + alone):.2f}x",
        )
    finally:
        if not os.environ.get("BENCH_REDIS_URL"):
            from config import embedded_redis

            embedded_redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
