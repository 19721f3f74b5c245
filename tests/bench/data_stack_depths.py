"""`python -m tests.bench.data_stack_depths [slug] [step]`: one render of a sample (default the
invoice) started under 0 to 127 extra frames, every `step` (default 16), bare and through
jobs.worker.data_stack.on_a_chunk_of_its_own: the render thread's minor page faults, system
CPU and CPU (ms) at each depth. Where the render's recursion crosses the end of one of
CPython 3.11's 16 KiB frame chunks, the bare render maps and unmaps one at each crossing."""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Callable
from typing import Any


def _at_depth(extra: int, work: Callable[[], Any]) -> Any:
    return work() if extra == 0 else _at_depth(extra - 1, work)


def _counted(work: Callable[[], Any]) -> tuple[int, int, int]:
    before = resource.getrusage(resource.RUSAGE_THREAD)
    started = time.process_time()
    work()
    after = resource.getrusage(resource.RUSAGE_THREAD)
    return (
        after.ru_minflt - before.ru_minflt,
        round((after.ru_stime - before.ru_stime) * 1000),
        round((time.process_time() - started) * 1000),
    )


def main() -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()
    from rendering.data_stack import on_a_chunk_of_its_own
    from rendering.options import parse_options
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from reports.samples import sample_files

    slug = sys.argv[1] if len(sys.argv) > 1 else "invoice"
    step = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    html, css, data = sample_files(slug)
    source = TemplateSource(engine="handlebars", html=html, css=css)
    options, limits = parse_options({}), limits_from_settings()

    def render() -> Any:
        return report_render(source=source, data=data, options=options, limits=limits)

    render()  # warm
    print(f"{slug}: (faults, system ms, CPU ms) a render, started under N extra frames")
    for extra in range(0, 128, step):
        bare = _counted(lambda extra=extra: _at_depth(extra, render))
        own = _counted(lambda extra=extra: _at_depth(extra, lambda: on_a_chunk_of_its_own(render)))
        print(f"{extra:4d}  bare {bare}  on a chunk of its own {own}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
