"""`python -m tests.bench.chunk_parts [slug] [renderer]`: the parts of a chunked layout in
one process, as the worker runs them: the job's own part (template, charts, plan, the
stored manifest), each chunk (read the plan, lay out), the merge (contents, stamp, merge,
finish). CPU seconds (time.process_time: the machine's load moves them less than wall
time), best and median of BENCH_REPS runs, with no garbage collection inside a timed part."""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any


def _cpu(work: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    # A full collection first and none during: a collection of the previous part's garbage
    # would land on whichever part runs when it comes due.
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        result = work(*args)
        return result, time.process_time() - started
    finally:
        gc.enable()


def main() -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    django.setup()
    from rendering.merging import ChunkPdf
    from rendering.options import parse_options
    from rendering.renderers import get_chunker
    from rendering.report import RenderInput, TemplateSource, pdf_finish, report_prepare
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    slug = sys.argv[1] if len(sys.argv) > 1 else "operations-review"
    renderer = sys.argv[2] if len(sys.argv) > 2 else "xhtml2pdf"
    reps = int(os.environ.get("BENCH_REPS", "3"))
    html, css, data = sample_files(slug)
    source = TemplateSource(engine="handlebars", html=html, css=css, renderer=renderer)
    options, limits = parse_options({}), limits_from_settings()
    chunker = get_chunker(renderer)
    if chunker is None:
        print(f"{renderer} lays documents out whole")
        return 1

    def job() -> tuple[bytes, int]:
        prepared = report_prepare(
            RenderInput(source=source, data=data, options=options, limits=limits)
        )
        plan = chunker.plan(
            body_html=prepared.body_html, css=prepared.css, options=options, chunks=2
        )
        if plan is None:
            raise SystemExit(f"{slug} is not chunked by {renderer}")
        count = chunker.count(plan)
        manifest = {"plan": plan, "warnings": prepared.warnings, "count": count}
        return json.dumps(manifest).encode(), count

    def chunk(manifest: bytes, index: int) -> tuple[bytes, dict[str, Any]]:
        part = chunker.render_chunk(json.loads(manifest)["plan"], index, limits=limits)
        return part.content, json.loads(json.dumps(part.summary()))

    def merge(manifest: bytes, results: list[tuple[bytes, dict[str, Any]]]) -> int:
        parts = [ChunkPdf.from_summary(content, summary) for content, summary in results]
        merged = chunker.merge(json.loads(manifest)["plan"], parts, limits=limits)
        return pdf_finish(merged, options=options, warnings=[]).page_count

    job()  # warm: imports, fonts, the chart cache, the V8 thread
    times: dict[str, list[float]] = {}
    pages = 0
    for _ in range(reps):
        (manifest, count), seconds = _cpu(job)
        times.setdefault("job", []).append(seconds)
        results = []
        for index in range(count):
            result, seconds = _cpu(chunk, manifest, index)
            times.setdefault(f"chunk {index}", []).append(seconds)
            results.append(result)
        pages, seconds = _cpu(merge, manifest, results)
        times.setdefault("merge", []).append(seconds)
    print(f"{slug} ({renderer}): {pages} pages, manifest {len(manifest)} bytes, CPU seconds")
    for part, values in times.items():
        print(f"  {part:8} best {min(values):.3f}  median {statistics.median(values):.3f}")
    chunks = [statistics.median(v) for part, v in times.items() if part.startswith("chunk")]
    print(f"  chunks: slowest / fastest (medians) {max(chunks) / min(chunks):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
