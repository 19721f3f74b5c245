"""Tenant JavaScript runs in a child process of its own under an OS memory ceiling and a
deadline: ArrayBuffers past the limit fail the render, an endless loop delays no other
render, and checking helpers (what the web process does) runs none of their code."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time

import pytest

from rendering.cpu_budget import process_cpu_seconds
from rendering.engines import engine_render, helpers_check
from rendering.engines.handlebars import HandlebarsEngine
from rendering.errors import LimitExceeded, TemplateSyntaxError
from rendering.limits import Limits

pytestmark = pytest.mark.process


LIMITS = Limits(template_timeout_ms=3000, template_max_memory_mb=256)
ARRAY_BUFFERS_390_MB = """
function grab() {
  var kept = [];
  for (var i = 0; i < 39; i++) { kept.push(new ArrayBuffer(10 * 1024 * 1024)); }
  return kept.length;
}
"""
_started: list[str] = []


def _audit(event: str, args: tuple) -> None:
    if event in ("subprocess.Popen", "os.fork", "os.exec", "os.posix_spawn"):
        _started.append(event)


sys.addaudithook(_audit)


def test_390_mb_of_array_buffers_under_a_256_mb_limit_fails_the_render():
    """V8's heap limit alone let this through (ArrayBuffers live outside the heap)."""
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="more than 256 MB of memory"):
        engine_render("handlebars", "{{grab}}", {}, LIMITS, helpers=ARRAY_BUFFERS_390_MB)
    assert time.monotonic() - started < 10
    # The process that asked is unharmed and renders the next template as usual.
    assert engine_render("handlebars", "<b>{{n}}</b>", {"n": 7}, LIMITS) == "<b>7</b>"


def test_array_buffers_within_the_limit_still_work():
    helpers = "function size() { return new ArrayBuffer(64 * 1024 * 1024).byteLength; }"
    html = engine_render("handlebars", "{{size}}", {}, LIMITS, helpers=helpers)
    assert html == str(64 * 1024 * 1024)


def test_a_heap_that_grows_without_end_fails_with_the_memory_message():
    helpers = "function grow() { var s = []; for (;;) { s.push('x'.repeat(1 << 20) + s.length); } }"
    patient = Limits(template_timeout_ms=30_000, template_max_memory_mb=256)  # memory first
    with pytest.raises(LimitExceeded, match="MB of memory"):
        engine_render("handlebars", "{{grow}}", {}, patient, helpers=helpers)


def test_an_endless_loop_does_not_delay_another_render():
    spin = "function spin() { while (true) {} }"
    failures: list[BaseException] = []

    def endless() -> None:
        try:
            engine_render("handlebars", "{{spin}}", {}, LIMITS, helpers=spin)
        except LimitExceeded as exc:
            failures.append(exc)

    spinners = [threading.Thread(target=endless) for _ in range(3)]
    for thread in spinners:
        thread.start()
    time.sleep(0.3)  # the loops are running
    took = []
    for n in range(5):
        started = time.monotonic()
        assert engine_render("handlebars", "{{n}}", {"n": n}, LIMITS) == str(n)
        took.append(time.monotonic() - started)
    for thread in spinners:
        thread.join()
    # Queued behind one loop, the first would wait most of its 3 s deadline; 2.5 s leaves room
    # for a loaded machine (seen: 1.5 s at a load average of 20 on 2 cores).
    assert max(took) < 2.5, took
    assert len(failures) == 3
    assert all("3000 ms" in str(exc) for exc in failures)


@pytest.mark.parametrize(
    "helpers",
    [
        "while (true) {}",
        "var kept = new ArrayBuffer(2 * 1024 * 1024 * 1024);",
        "function f() {}\n}); while (true) {}; (function () {",  # cannot close the body early
        "throw new Error('top-level code')",
    ],
)
def test_checking_helpers_runs_none_of_their_code_and_starts_no_process(helpers):
    helpers_check("handlebars", "function warm() {}")  # the parser isolate exists now
    _started.clear()
    started = time.monotonic()
    if "});" in helpers:
        with pytest.raises(TemplateSyntaxError):
            helpers_check("handlebars", helpers, LIMITS)
    else:
        helpers_check("handlebars", helpers, LIMITS)
    assert time.monotonic() - started < 2  # running the loop would take the 3 s limit
    assert _started == []


def test_the_syntax_check_of_large_helpers_is_quick():
    helpers = "".join(f"function h{n}(a, b) {{ return a + b * {n}; }}\n" for n in range(12_000))
    assert len(helpers) > 400_000
    started = time.monotonic()
    helpers_check("handlebars", helpers)
    with pytest.raises(TemplateSyntaxError, match="line 12001"):
        helpers_check("handlebars", helpers + "function broken( {\n")
    assert time.monotonic() - started < 5  # about 0.1 s unloaded


def test_a_large_template_check_does_not_hold_up_a_small_one():
    """A 512 KB template takes about a second to parse; other submits' checks run beside it
    (parser isolates on threads of their own), not after it."""
    big = "".join(f"<p>{{{{#each items}}}}{{{{name}}}} {n}{{{{/each}}}}</p>\n" for n in range(9000))
    engine = HandlebarsEngine()
    engine.check("<p>{{warm}}</p>")
    slow: list[float] = []

    def check_big() -> None:
        started = time.monotonic()
        engine.check(big)
        slow.append(time.monotonic() - started)

    thread = threading.Thread(target=check_big)
    thread.start()
    time.sleep(0.05)
    took = []
    for n in range(5):
        started = time.monotonic()
        engine.check(f"<p>{{{{small}}}} {n}</p>")
        took.append(time.monotonic() - started)
    thread.join()
    assert slow[0] > 2 * max(took), (slow, took)
    assert max(took) < 1, took


def _only_new_children() -> None:
    """The idle V8 children of this process killed: the next render starts a new one."""
    from rendering.engines import v8_process

    with v8_process._lock:
        served, v8_process._idle[:] = list(v8_process._idle), []
    for child in served:
        v8_process._kill(child)


def test_one_child_serves_many_renders_each_in_a_fresh_isolate():
    """Neither a helper, a global nor a partial of one render is there for the next, though
    the same child served both (no process started between them)."""
    # A new child: one that served earlier tests' renders may reach MAX_RENDERS among the
    # five below and be replaced, as it should be.
    _only_new_children()
    leaky = (
        "function remember() { globalThis.kept = 'secret';"
        " Handlebars.registerPartial('p', 'x'); return 'ok'; }"
    )
    assert engine_render("handlebars", "{{remember}}", {}, LIMITS, helpers=leaky) == "ok"
    _started.clear()
    for n in range(5):
        probe = (
            "function probe() { return typeof remember + ':' + typeof kept + ':'"
            " + typeof Handlebars.partials.p; }"
        )
        html = engine_render("handlebars", "{{probe}} {{n}}", {"n": n}, LIMITS, helpers=probe)
        assert html == f"undefined:undefined:undefined {n}"
    assert _started == []


def test_a_child_that_met_a_limit_serves_no_other_render():
    from rendering.engines import v8_process

    spin = "function spin() { while (true) {} }"
    quick = Limits(template_timeout_ms=300, template_max_memory_mb=256)
    with pytest.raises(LimitExceeded):
        engine_render("handlebars", "{{spin}}", {}, quick, helpers=spin)
    # The killed child is not among the idle ones (all running), and renders go on.
    assert all(child.process.poll() is None for child in v8_process._idle)
    assert len(v8_process._idle) <= v8_process.MAX_IDLE
    assert engine_render("handlebars", "{{n}}", {"n": 1}, LIMITS) == "1"


def _stop_once_rendering(pid: int, *, after_cpu: float, held: float) -> threading.Thread:
    """SIGSTOP the child `pid` once its render has spent `after_cpu` s of CPU, and SIGCONT it
    `held` s later: a render kept off the CPU, as on a host where renders wait for a core."""
    started = process_cpu_seconds(pid)

    def hold() -> None:
        ends = time.monotonic() + 30
        while time.monotonic() < ends:
            if process_cpu_seconds(pid) - started >= after_cpu:
                os.kill(pid, signal.SIGSTOP)
                time.sleep(held)
                os.kill(pid, signal.SIGCONT)
                return
            time.sleep(0.002)

    thread = threading.Thread(target=hold)
    thread.start()
    return thread


def _warm_child_pid() -> int:
    """The pid of the child the next render takes (the newest idle one), once it has its
    next isolate ready."""
    from rendering.engines import v8_process

    assert engine_render("handlebars", "{{n}}", {"n": 1}, LIMITS) == "1"
    time.sleep(0.3)  # the child makes the next render's isolate after answering
    return v8_process._idle[-1].process.pid


def test_a_render_kept_off_the_cpu_past_its_budget_still_finishes():
    """The limit is the render's CPU time: one that waited for a core longer than its
    budget (here 1 s stopped against 300 ms) and needs little CPU is not failed for the
    machine's load. V8's own timeout, wall time, failed it."""
    busy = (
        "function busy() { var end = Date.now() + 150; var n = 0;"
        " while (Date.now() < end) { n++; } return 'done'; }"
    )
    quick = Limits(template_timeout_ms=300, template_max_memory_mb=256)
    holder = _stop_once_rendering(_warm_child_pid(), after_cpu=0.03, held=1.0)
    started = time.monotonic()
    assert engine_render("handlebars", "{{busy}}", {}, quick, helpers=busy) == "done"
    holder.join()
    assert time.monotonic() - started > 1.0  # past the budget in wall time


def test_a_render_that_spends_no_cpu_is_still_stopped_at_ten_times_its_budget():
    """A render that waits without spending CPU (a blocking Atomics.wait) ends at the wall
    cap: ten times the budget, not forever."""
    block = "function block() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); }"
    quick = Limits(template_timeout_ms=200, template_max_memory_mb=256)
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="longer than 200 ms"):
        engine_render("handlebars", "{{block}}", {}, quick, helpers=block)
    took = time.monotonic() - started
    assert 2.0 <= took < 15, took


def test_a_templates_precompiled_text_is_made_before_its_helpers_run_and_kept_for_the_next():
    """The child keeps each template's precompiled text for its later renders. Helpers that
    replace Handlebars' compiler and template functions change neither this render (its
    text was made before they ran) nor the next render of the same source, another
    tenant's perhaps, in the same child."""
    _only_new_children()
    source = "<p>{{n}} {{#each items}}[{{this}}]{{/each}}</p>"
    hijack = (
        "Handlebars.template = function () { return function () { return 'hijacked'; }; };"
        " Handlebars.compile = Handlebars.template;"
        " Handlebars.precompile = function () { return 'function () {}'; };"
        " function noop() { return ''; }"
    )
    first = engine_render("handlebars", source, {"n": 1, "items": [1, 2]}, LIMITS, helpers=hijack)
    assert first == "<p>1 [1][2]</p>"
    _started.clear()
    second = engine_render("handlebars", source, {"n": 2, "items": ["a"]}, LIMITS)
    assert second == "<p>2 [a]</p>"
    assert _started == []  # the same child served both


def test_the_precompiled_texts_are_kept_by_source():
    from py_mini_racer import MiniRacer

    from rendering.engines import v8_child
    from rendering.engines.v8_flags import v8_start

    v8_start()
    handlebars = (v8_child._HERE / "vendor" / "handlebars.min.js").read_text(encoding="utf-8")

    async def check() -> None:
        # Made on the running loop, as the child makes its isolates.
        made, bare = MiniRacer(), MiniRacer()
        try:
            made.eval(handlebars)
            text = await v8_child._spec(made, "{{n}} kept", 3)
            assert text is not None
            assert "kept" in text
            request = {"source": "{{n}} kept", "helpers": "", "dialect": "handlebars"}
            assert v8_child._kept_spec(request) == text
            assert v8_child._kept_spec({**request, "dialect": "mustache"}) is None
            assert v8_child._kept_spec({**request, "source": "{{n}} not kept"}) is None
            # Made in an isolate without Handlebars, the precompile fails: nothing is kept.
            assert await v8_child._spec(bare, "{{n}} not kept", 3) is None
            assert await v8_child._spec(made, "{{#if}}", 3) is None  # does not parse
            assert v8_child._kept_spec({**request, "source": "{{#if}}"}) is None
        finally:
            made.close()
            bare.close()

    asyncio.run(check())


def test_a_kept_template_renders_the_same_with_handlebars_runtime_alone():
    """The second render of a template in a child takes the isolate with Handlebars' runtime
    only (its precompiled text is kept): our helpers, inline partials, escaping and safe
    strings come out as from the first, which compiled it."""
    source = (
        "{{#*inline 'row'}}<td>{{name}}</td><td>{{formatNumber qty 0}}</td>{{/inline}}"
        "<table>{{#each items}}<tr>{{> row}}</tr>{{/each}}</table>"
        "{{#if (gt total 10)}}big{{else}}small{{/if}} {{note}} {{pageBreak}}"
        "{{#with customer}}{{lookup this 'name'}}{{/with}}"
    )
    data = {
        "items": [{"name": "a<b", "qty": 1200}, {"name": "c", "qty": 3}],
        "total": 12,
        "note": "<i>x</i>",
        "customer": {"name": "Ada & Co"},
    }
    expected = (
        "<table><tr><td>a&lt;b</td><td>1,200</td></tr><tr><td>c</td><td>3</td></tr></table>"
        "big &lt;i&gt;x&lt;/i&gt; <pdf:nextpage></pdf:nextpage>Ada &amp; Co"
    )
    _only_new_children()  # one child, so the renders after the first find the text kept
    assert engine_render("handlebars", source, data, LIMITS) == expected
    _started.clear()
    renders = [engine_render("handlebars", source, data, LIMITS) for _ in range(2)]
    assert renders == [expected] * 2
    assert _started == []  # the same child served them


def test_only_a_kept_handlebars_template_without_helpers_or_partials_takes_the_runtime():
    from rendering.engines import v8_child

    source = "{{n}} runtime"
    v8_child._specs.put(v8_child.digest_of(source), "{}")
    plain = {"source": source, "helpers": "", "partials": {}, "dialect": "handlebars"}

    def serves(request: dict) -> bool:
        return v8_child._runtime_serves(request, v8_child._kept_spec(request))

    assert serves(plain)
    assert not serves({**plain, "source": "{{n}} not kept"})
    assert not serves({**plain, "helpers": "function f() { return 1; }"})
    assert not serves({**plain, "partials": {"p": "x"}})
    assert not serves({**plain, "dialect": "mustache"})
    assert not serves({**plain, "dialect": "ejs"})


def test_a_child_whose_memory_stayed_grown_ends_after_its_answer_and_renders_go_on(monkeypatch):
    """The isolate closes after the answer went out; a child that finds its memory grown
    then ends before reading another request, and each render is still answered."""
    from rendering.engines import v8_process

    # Any growth at all retires it: every child serves one render.
    monkeypatch.setattr(v8_process, "_CHILD_ARGS", (str(-(1 << 50)),))
    _only_new_children()
    _started.clear()
    served = []
    for n in range(3):
        assert engine_render("handlebars", "{{n}}", {"n": n}, LIMITS) == str(n)
        served.append(v8_process._idle[-1])
    for child in served:
        assert child.process.wait(timeout=10) == v8_process._EXIT_RETIRED
    assert len({child.process.pid for child in served}) == 3
    assert len(_started) >= 3
    _only_new_children()


def test_a_request_sent_to_a_child_that_retired_goes_to_another():
    """The child was still ending when the request was written to it (it never reads it):
    the render is answered by a new child, not failed."""
    import subprocess

    from rendering.engines import v8_process

    _only_new_children()
    ending = subprocess.Popen(  # ends itself as a retiring child does, without reading
        [
            sys.executable,
            "-c",
            f"import os, time; time.sleep(0.3); os._exit({v8_process._EXIT_RETIRED})",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    v8_process._idle.append(v8_process._Child(ending))
    assert engine_render("handlebars", "{{n}} again", {"n": 7}, LIMITS) == "7 again"
    assert ending.returncode == v8_process._EXIT_RETIRED
    assert all(child.process is not ending for child in v8_process._idle)


def test_a_child_ends_itself_at_the_cpu_budget_of_a_later_render():
    """The CPU watchdog watches each render of a child, not only its first: a child that
    served a render, then meets the budget in the next, ends itself with EXIT_TIME_LIMIT
    (not killed at the wall cap)."""
    from rendering.cpu_budget import EXIT_TIME_LIMIT
    from rendering.engines import v8_process

    _only_new_children()
    assert engine_render("handlebars", "{{n}}", {"n": 1}, LIMITS) == "1"
    child = v8_process._idle[-1]
    spin = "function spin() { while (true) {} }"
    quick = Limits(template_timeout_ms=300, template_max_memory_mb=256)
    with pytest.raises(LimitExceeded):
        engine_render("handlebars", "{{spin}}", {}, quick, helpers=spin)
    assert child.process.returncode == EXIT_TIME_LIMIT
