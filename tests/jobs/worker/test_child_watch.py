"""A pool child's renderer watch (jobs.worker.health.ChildWatch), one step at a time in this
process: what it writes for the main process, which counts a child's silence from it."""

from __future__ import annotations

import itertools

from jobs.readiness import CheckResult
from jobs.worker import health


def test_a_child_reports_itself_alive_before_it_starts_a_replacement_browser(
    settings, tmp_path, monkeypatch
):
    settings.WORKER_HEALTH_DIR = str(tmp_path)
    clock = itertools.count(1000)
    monkeypatch.setattr(health.time, "time", lambda: float(next(clock)))
    watch = health.ChildWatch(role="worker")
    report = health.child_file("worker", watch.pid)
    seen: list[tuple[bool, float | None]] = []
    answers = iter([CheckResult(False, "Chromium did not answer"), CheckResult(True, "replaced")])

    def probe(*, replace: bool) -> CheckResult:
        before = health.read_json(report)
        seen.append((replace, before["at"] if before else None))
        return next(answers)

    monkeypatch.setattr(health, "renderer_probe", probe)
    watch.step()  # the ping fails: the browser is killed, the next step replaces it
    first = health.read_json(report)
    assert first is not None
    assert first["renderer"]["ok"] is False
    watch.step()  # the replacement: a new report lands before the (slow) start
    assert seen[0] == (False, None)
    replace, at_start = seen[1]
    assert replace is True
    assert at_start is not None
    assert at_start > first["at"]
    last = health.read_json(report)
    assert last is not None
    assert last["renderer"] == {"ok": True, "detail": "replaced", "ms": 0.0}
