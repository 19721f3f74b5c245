"""Part (e) of the end-to-end bench (issue 38): one-page invoices with the `chromium`
renderer through the web and the worker's children, against a warm bare Playwright loop
(`set_content` + `pdf`, a new context per PDF) in as many processes on the same final
HTML, and report_render alone in as many processes (what the renderer adds to the loop),
with Gotenberg's ~2 Chromium conversions a second per core beside the per-core figure."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psutil

from tests.bench import cpu_account
from tests.bench.pipeline import (
    CHILDREN,
    ONE_PAGE_JOBS,
    V8_CHILD,
    Api,
    Results,
    _django,
    _ts,
    cmdline,
    pool_rate,
    process_groups,
    worker_children,
)

# As the issue states it: Gotenberg does about 2 Chromium conversions a second per core.
GOTENBERG_PER_CORE = 2.0
TARGET = 0.75
CHROMIUM = Path("/usr/bin/chromium")
# Sampled: a renderer that exits between two samples is missed (tree_cpu counts it).
BROWSER_GROUP = "Chromium and Playwright's driver of the children (sampled)"

# The pool process's warm browser (one per process, started on its first PDF).
_bare: dict[str, Any] = {}


def prepared_invoice() -> tuple[Any, Any, Any]:
    """The invoice as report_prepare leaves it for the `chromium` renderer (the template run,
    SVG charts), with the options and limits it was prepared under."""
    _django()
    from rendering.options import parse_options
    from rendering.report import RenderInput, TemplateSource, report_prepare
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    html, css, data = sample_files("invoice")
    options, limits = parse_options({}), limits_from_settings()
    source = TemplateSource(engine="handlebars", html=html, css=css, renderer="chromium")
    prepared = report_prepare(RenderInput(source=source, data=data, options=options, limits=limits))
    return prepared, options, limits


def chromium_document() -> str:
    """The invoice exactly as the `chromium` renderer gets it: prepared_invoice, then the
    renderer's own document around it (fonts installed, not linked)."""
    from rendering.renderers.document import html_document

    prepared, options, _ = prepared_invoice()
    return html_document(
        body_html=prepared.body_html, css=prepared.css, options=options, font_url=None
    )


def tree_cpu(roots: list[psutil.Process]) -> float:
    """CPU seconds of `roots` and every process under them, the exited ones included: a
    context's renderer process lives shorter than the CPU account's samples, and its CPU
    is found in its parent's (the zygote's) reaped children's times."""
    total = 0.0
    for root in roots:
        try:
            processes = [root, *root.children(recursive=True)]
        except psutil.Error:
            continue
        for proc in processes:
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system + times.children_user + times.children_system
    return total


def _tree_cpu() -> float:
    return tree_cpu([psutil.Process()])


def _bare_pdfs(document: str, count: int) -> tuple[int, float]:
    """`count` PDFs in this process's warm browser, each in a new context; their CPU (this
    process, Playwright's driver and the browser's processes)."""
    from playwright.sync_api import sync_playwright

    from rendering.renderers.chromium_browser import fontconfig_file

    if "browser" not in _bare:
        playwright = _bare["playwright"] = sync_playwright().start()
        # The same fonts as the service's browser (installed through fontconfig), so both
        # lay out the same glyphs; nothing else of its confinement.
        env: dict[str, str | float | bool] = {
            **os.environ,
            "FONTCONFIG_FILE": str(fontconfig_file()),
        }
        _bare["browser"] = playwright.chromium.launch(executable_path=str(CHROMIUM), env=env)
    browser = _bare["browser"]
    cpu = _tree_cpu()
    for _ in range(count):
        context = browser.new_context()
        page = context.new_page()
        page.set_content(document)
        page.pdf(format="A4", print_background=True)
        context.close()
    return count, _tree_cpu() - cpu


def _render_invoices(count: int) -> tuple[int, float]:
    """report_render of the invoice with the `chromium` renderer, `count` times; CPU as above."""
    _django()
    from rendering.options import parse_options
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    html, css, data = sample_files("invoice")
    source = TemplateSource(engine="handlebars", html=html, css=css, renderer="chromium")
    options, limits = parse_options({}), limits_from_settings()
    cpu = _tree_cpu()
    for _ in range(count):
        report_render(source=source, data=data, options=options, limits=limits)
    return count, _tree_cpu() - cpu


def _browsers(worker: Any) -> cpu_account.Finder:
    """The browsers the worker children started, with all their processes (the children's
    V8 template processes are a group of their own, pipeline.V8_GROUP)."""

    children = worker_children(worker)  # once: a browser's exited processes are zombies

    def find() -> list[psutil.Process]:
        found: list[psutil.Process] = []
        for child in children:
            try:
                found += [
                    p
                    for p in child.children(recursive=True)
                    if p not in found and V8_CHILD not in cmdline(p)
                ]
            except psutil.Error:
                continue
        return found

    return find


def chromium_throughput(
    *, api: Api, web: Any, worker: Any, callbacks: Any, invoice: dict, results: Results
) -> None:
    print(
        f"(e) {ONE_PAGE_JOBS} one-page jobs, renderer chromium, vs a warm bare Playwright loop",
        flush=True,
    )
    counter = iter(range(10**9))

    def submit() -> str:
        # A different invoice number each: nothing can come from the result cache.
        data = {**invoice["data"], "invoice": {**invoice["data"]["invoice"]}}
        data["invoice"]["number"] = f"INV-BENCH-{next(counter):06d}"
        return api.submit({**invoice, "data": data, "renderer": "chromium"})

    api.wait([submit() for _ in range(4 * CHILDREN)])  # warm: each child's browser
    groups = process_groups(web=web, worker=worker, callbacks=callbacks)
    groups[BROWSER_GROUP] = _browsers(worker)
    account = cpu_account.CpuAccount(groups)
    children = worker_children(worker)
    children_cpu = tree_cpu(children)
    account.start()
    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(lambda _: submit(), range(ONE_PAGE_JOBS)))
    states = api.wait(ids)
    account.stop()
    children_cpu = tree_cpu(children) - children_cpu
    first = min(_ts(s["created_at"]) for s in states)
    last = max(_ts(s["completed_at"]) for s in states)
    service = ONE_PAGE_JOBS / (last - first).total_seconds()
    document = chromium_document()
    bare, bare_cpu = pool_rate(_bare_pdfs, (document,), ONE_PAGE_JOBS)
    alone, alone_cpu = pool_rate(_render_invoices, (), ONE_PAGE_JOBS)
    cores = os.cpu_count() or CHILDREN
    results.add(
        "service, renderer chromium, first submit to last completed", f"{service:6.1f} jobs/s"
    )
    results.add(
        f"bare Playwright set_content + pdf, {CHILDREN} processes, same HTML",
        f"{bare:6.1f} PDFs/s   service = {service / bare:.2f}x (target {TARGET}x)",
    )
    results.add(
        f"report_render alone, renderer chromium, {CHILDREN} processes",
        f"{alone:6.1f} PDFs/s   = {alone / bare:.2f}x bare; service = {service / alone:.2f}x",
    )
    results.add(
        f"per core ({cores} cores): service / bare / Gotenberg as stated",
        f"{service / cores:6.2f} / {bare / cores:.2f} / ~{GOTENBERG_PER_CORE:.0f} a second",
    )
    account.report(cores=cores, jobs=ONE_PAGE_JOBS, add=results.add)
    results.add(
        "  CPU a PDF with everything under it (browser, exited renderers included)",
        f"worker children {children_cpu / ONE_PAGE_JOBS * 1000:.0f} ms; report_render alone "
        f"{alone_cpu * 1000:.0f} ms; bare loop {bare_cpu * 1000:.0f} ms",
    )
