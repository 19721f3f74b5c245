"""Loaded into the bench's worker (`celery worker --include`) when BENCH_CHILD_ACCOUNT_DIR is
set: each pool child counts the CPU of its render tasks and, within them, of the render
(report_prepare and report_layout), and rewrites its totals to a JSON file after each task.
CPU is the process's (time.process_time), as report_render alone is measured; beside it the
render thread's own (time.thread_time: without the CPU of the child's other threads), its
context switches (involuntary: preempted by another process), and the garbage collector's
collections and their CPU during renders (RenderCounters)."""

from __future__ import annotations

import gc
import json
import os
import resource
import time
from pathlib import Path
from typing import Any, ClassVar

from celery.signals import task_postrun, task_prerun, worker_process_init

RENDER_TASK = "jobs.render_pdf"  # jobs.dispatch's, without importing Django here
# Summed over renders: the render thread's CPU, its voluntary and involuntary context
# switches, the collector's runs of generation 2 and CPU in every generation, and the
# thread's system CPU and minor page faults (copy-on-write, memory given back and taken
# again).
COUNTERS = (
    "render_thread_cpu",
    "render_vcsw",
    "render_ivcsw",
    "render_gc2",
    "render_gc_cpu",
    "render_sys_cpu",
    "render_minflt",
)

_totals: dict[str, Any] = {"tasks": 0, "task_cpu": 0.0, "render_cpu": 0.0} | dict.fromkeys(
    COUNTERS, 0.0
)
_started: dict[str, float] = {}


class RenderCounters:
    """Adds a block's thread CPU, context switches and collections to `totals`."""

    _gc: ClassVar[dict[str, float]] = {"gc2": 0.0, "gc_cpu": 0.0, "since": 0.0}
    _installed: ClassVar[bool] = False

    def __init__(self, totals: dict[str, Any]) -> None:
        self.totals = totals
        if not RenderCounters._installed:
            gc.callbacks.append(RenderCounters._collected)
            RenderCounters._installed = True

    @staticmethod
    def _collected(phase: str, info: dict[str, int]) -> None:
        counts = RenderCounters._gc
        if phase == "start":
            counts["since"] = time.process_time()
            return
        counts["gc_cpu"] += time.process_time() - counts["since"]
        counts["gc2"] += info["generation"] == 2

    @classmethod
    def _now(cls) -> tuple[float, ...]:
        usage = resource.getrusage(resource.RUSAGE_THREAD)
        gc_counts = cls._gc
        return (
            time.thread_time(),
            usage.ru_nvcsw,
            usage.ru_nivcsw,
            gc_counts["gc2"],
            gc_counts["gc_cpu"],
            usage.ru_stime,
            usage.ru_minflt,
        )

    def __enter__(self) -> None:
        self.begun = self._now()

    def __exit__(self, *_: object) -> None:
        for key, end, begin in zip(COUNTERS, self._now(), self.begun, strict=True):
            self.totals[key] += end - begin


def _directory() -> Path | None:
    value = os.environ.get("BENCH_CHILD_ACCOUNT_DIR")
    return Path(value) if value else None


@worker_process_init.connect
def _count_renders(**_: Any) -> None:
    from jobs.worker import execution
    from rendering.glyphs import bundled_code_points

    # Did the main process warm the fonts' character maps before the fork?
    _totals["glyphs_inherited"] = bundled_code_points.cache_info().currsize == 1
    for name in ("report_prepare", "report_layout"):
        original = getattr(execution, name)

        def counted(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                with RenderCounters(_totals):
                    return _original(*args, **kwargs)
            finally:
                _totals["render_cpu"] += time.process_time() - started

        setattr(execution, name, counted)


@task_prerun.connect
def _task_started(task: Any = None, **_: Any) -> None:
    if getattr(task, "name", "") == RENDER_TASK:
        _started["cpu"] = time.process_time()


@task_postrun.connect
def _task_done(task: Any = None, **_: Any) -> None:
    directory = _directory()
    if getattr(task, "name", "") != RENDER_TASK or "cpu" not in _started or directory is None:
        return
    _totals["tasks"] += 1
    _totals["task_cpu"] += time.process_time() - _started.pop("cpu")
    (directory / f"child-{os.getpid()}.json").write_text(json.dumps(_totals))


def read(directory: Path) -> dict[str, Any]:
    """The children's totals, summed."""
    totals: dict[str, Any] = {"tasks": 0, "task_cpu": 0.0, "render_cpu": 0.0, "inherited": []}
    totals |= dict.fromkeys(COUNTERS, 0.0)
    for path in sorted(directory.glob("child-*.json")):
        child = json.loads(path.read_text())
        for key in ("tasks", "task_cpu", "render_cpu", *COUNTERS):
            totals[key] += child.get(key, 0.0)
        totals["inherited"].append(child.get("glyphs_inherited"))
    return totals
