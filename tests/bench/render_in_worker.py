"""`python -m tests.bench.render_in_worker`: the CPU of one invoice render (report_prepare and
report_layout) in a process set up as the pipeline bench's `report_render` alone is, against
the same render in a child forked from a process set up as the Celery worker's main process
is before its pool forks (Django, the worker's modules, rendering.preload's libraries, the
fonts' maps, then gc.freeze). Each mode runs in a fresh interpreter of its own, the modes
alternating, so that only their difference counts on a shared machine. With each render,
the garbage collector's collections of each generation and their CPU (gc.callbacks).

BENCH_RENDERS (default 40) renders a round, after 4 to warm; BENCH_ROUNDS (default 3)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from typing import Any

RENDERS = int(os.environ.get("BENCH_RENDERS", "40"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
MODES = ("alone", "worker child")


def _gc_probe() -> dict[str, Any]:
    """Collections by generation and their CPU, counted from now on."""
    import gc
    import time

    counts: dict[str, Any] = {"collections": [0, 0, 0], "cpu": [0.0, 0.0, 0.0], "started": 0.0}

    def callback(phase: str, info: dict[str, int]) -> None:
        generation = info["generation"]
        if phase == "start":
            counts["started"] = time.process_time()
        else:
            counts["collections"][generation] += 1
            counts["cpu"][generation] += time.process_time() - counts["started"]

    gc.callbacks.append(callback)
    return counts


def _renders(count: int) -> dict[str, Any]:
    """`count` invoice renders in this process, as the worker's job runs them (report_prepare
    then report_layout); their CPU each, and the collector's work meanwhile."""
    import gc
    import time

    from rendering.options import parse_options
    from rendering.report import RenderInput, TemplateSource, report_layout, report_prepare
    from reports.limits import limits_from_settings
    from reports.samples import sample_files
    from tests.bench import child_account

    html, css, data = sample_files("invoice")
    source = TemplateSource(engine="handlebars", html=html, css=css)
    job = RenderInput(
        source=source, data=data, options=parse_options({}), limits=limits_from_settings()
    )
    for _ in range(4):  # warm: imports, fonts, the V8 child
        report_layout(report_prepare(job), job)
    probe = _gc_probe()
    cpu = []
    counters = dict.fromkeys(child_account.COUNTERS, 0.0)
    for _ in range(count):
        started = time.process_time()
        with child_account.RenderCounters(counters):
            report_layout(report_prepare(job), job)
        cpu.append(time.process_time() - started)
    return {
        "sys_ms": round(counters["render_sys_cpu"] / count * 1000, 2),
        "minflt": round(counters["render_minflt"] / count),
        "cpu_ms": [round(c * 1000, 2) for c in cpu],
        "gc_collections": probe["collections"],
        "gc_cpu_ms": [round(c * 1000, 2) for c in probe["cpu"]],
        "tracked": len(gc.get_objects()),
        "frozen": gc.get_freeze_count(),
    }


def _django() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()


def alone(count: int) -> dict[str, Any]:
    """As tests.bench.pipeline's renderer_throughput: Django set up, nothing else."""
    _django()
    return _renders(count)


def worker_child(count: int) -> dict[str, Any]:
    """As a Celery prefork child: the worker's main process loads the app and its tasks, warms
    and freezes (jobs.worker.signals.warm_before_fork), forks; the child runs
    worker_process_init's handlers and renders."""
    _django()
    from celery.signals import worker_process_init

    from config.celery_app import app
    from jobs.worker import signals

    app.loader.import_default_modules()  # the tasks, as the worker imports them
    signals.warm_before_fork()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the pool child
        os.close(read)
        code = 0
        try:
            worker_process_init.send(sender=None)
            if os.environ.get("BENCH_GC_THRESHOLD"):  # a trial: the young generation's size
                import gc

                gc.set_threshold(int(os.environ["BENCH_GC_THRESHOLD"]), *gc.get_threshold()[1:])
            result = _renders(count)
            os.write(write, json.dumps(result).encode())
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read()
    os.waitpid(pid, 0)
    return dict(json.loads(answer))


def _one(mode: str) -> dict[str, Any]:
    """`mode` in an interpreter of its own: its last line of output is the result."""
    code = (
        "import json, sys\n"
        "from tests.bench import render_in_worker as bench\n"
        f"result = bench.{mode.replace(' ', '_')}({RENDERS})\n"
        "print(json.dumps(result))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{mode}: {done.stderr[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> int:
    print(f"{RENDERS} invoice renders a mode a round, {ROUNDS} rounds, modes alternating")
    for round_number in range(ROUNDS):
        for mode in MODES if round_number % 2 == 0 else reversed(MODES):
            result = _one(mode)
            cpu = result["cpu_ms"]
            collections, gc_cpu = result["gc_collections"], result["gc_cpu_ms"]
            print(
                f"round {round_number + 1} {mode:>12}: CPU a render median "
                f"{statistics.median(cpu):6.1f} ms, mean {statistics.fmean(cpu):6.1f} ms; "
                f"collections gen0/1/2 {collections} taking {gc_cpu} ms in all; "
                f"tracked {result['tracked']}, frozen {result['frozen']}; a render's system "
                f"CPU {result['sys_ms']} ms, minor faults {result['minflt']}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
