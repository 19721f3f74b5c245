"""`python -m tests.bench.handlebars_cpu`: CPU a Handlebars render costs, this process and
its V8 children together (reaped ones and live ones), for the `invoice` sample: the
template step alone (`engine_render`) and the whole `report_render` (template, layout,
stamp). CPU seconds, not wall time, so a loaded machine moves it less (it still does)."""

from __future__ import annotations

import os
import resource
import sys
from collections.abc import Callable

import psutil

RENDERS = int(os.environ.get("BENCH_RENDERS", "30"))


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    live = 0.0
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.NoSuchProcess:
            continue
        live += times.user + times.system
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + live


def _per_render(render: Callable[[], object]) -> float:
    for _ in range(3):
        render()
    started = _cpu()
    for _ in range(RENDERS):
        render()
    return (_cpu() - started) / RENDERS


def main() -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    django.setup()
    from rendering.engines import engine_render
    from rendering.options import parse_options
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    html, css, data = sample_files("invoice")
    limits = limits_from_settings()
    source = TemplateSource(engine="handlebars", html=html, css=css)
    options = parse_options({})
    step = _per_render(lambda: engine_render("handlebars", html, data, limits))
    whole = _per_render(
        lambda: report_render(source=source, data=data, options=options, limits=limits)
    )
    print(f"invoice, {RENDERS} renders: Handlebars step {step * 1000:.1f} ms CPU a render;")
    print(f"whole report_render {whole * 1000:.1f} ms CPU a render (self and children)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
