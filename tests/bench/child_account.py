"""Loaded into the bench's worker (`celery worker --include`) when BENCH_CHILD_ACCOUNT_DIR is
set: each pool child counts the CPU of its render tasks and, within them, of the render
(report_prepare and report_layout), and rewrites its totals to a JSON file after each task.
CPU is the process's (time.process_time), as report_render alone is measured."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from celery.signals import task_postrun, task_prerun, worker_process_init

RENDER_TASK = "jobs.render_pdf"  # jobs.dispatch's, without importing Django here

_totals: dict[str, Any] = {"tasks": 0, "task_cpu": 0.0, "render_cpu": 0.0}
_started: dict[str, float] = {}


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
    for path in sorted(directory.glob("child-*.json")):
        child = json.loads(path.read_text())
        for key in ("tasks", "task_cpu", "render_cpu"):
            totals[key] += child[key]
        totals["inherited"].append(child.get("glyphs_inherited"))
    return totals
