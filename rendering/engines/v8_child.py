"""Handlebars, Mustache and EJS renders in a process apart from the worker, each in a fresh
V8 isolate, under an OS memory ceiling.

Run as a script (`python -I v8_child.py`) by rendering.engines.v8_process, with an empty
environment; of the project it loads only rendering/rlimits.py, by its path. It serves
renders one at a time, each a length-prefixed JSON request on stdin and answer on stdout:
before each it has a new isolate ready (V8 started, Handlebars' runtime loaded; the rest of
the libraries when the render needs them), so no global, helper or partial of one render is
there for the next, and closes it after. The process runs on one thread as an asyncio
event loop, which mini-racer then uses for every isolate: V8's answers come back to it
straight from V8's thread (a MiniRacer made outside a loop starts a thread and a loop of
its own for each isolate, and each call hops through that thread both ways). During a
render RLIMIT_DATA is what the process uses then plus the template's memory budget (V8's
heap limit does not count ArrayBuffers: 390 MB allocated under a 16 MB limit). A render
that meets a limit or fails outside the template ends the process after its answer; memory
that stays used after the isolate closed (closed after the answer) ends it before it reads
another request (EXIT_RETIRED); the parent also replaces it after a number of renders.
What it keeps between renders, outside every isolate, is each Handlebars template's
precompiled text (_specs), made in a fresh isolate before the render's own code ran there.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

_HERE = Path(__file__).resolve().parent

if TYPE_CHECKING:
    from rendering.cpu_budget import EXIT_TIME_LIMIT, WALL_CAP_FACTOR, CpuBudget
    from rendering.digest_memo import DigestMemo, digest_of
    from rendering.rlimits import rlimit_cap
else:
    # Run with -I, so no folder of the project is on sys.path: the memory ceiling's and
    # the CPU budget's rules and the digest memo (standard library only) are loaded by their
    # paths rather than copied here.
    def _load(name):
        spec = importlib.util.spec_from_file_location(name, _HERE.parent / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    rlimit_cap = _load("rlimits").rlimit_cap
    _cpu_budget = _load("cpu_budget")
    CpuBudget, WALL_CAP_FACTOR = _cpu_budget.CpuBudget, _cpu_budget.WALL_CAP_FACTOR
    EXIT_TIME_LIMIT = _cpu_budget.EXIT_TIME_LIMIT
    _digest_memo = _load("digest_memo")
    DigestMemo, digest_of = _digest_memo.DigestMemo, _digest_memo.digest_of

# A Handlebars template as Handlebars.precompile makes it: the JavaScript that
# Handlebars.compile would build and run, as text. Made in a fresh isolate before any code
# of the render's own (its helpers) runs there, so it depends on the source alone; null when
# the source does not parse (the render then parses it and reports where).
PRECOMPILE_JS = """
(function (source) {
  try { return Handlebars.precompile(source); } catch (e) { return null; }
})
"""

# Results cross the boundary as JSON text so no JS object proxy outlives the isolate.
RENDER_JS = """
(function (source, data, helpers, dialect, partials, spec) {
  partials = partials || {};
  // Evaluated before the helpers run, as the template's text was made before they existed.
  var precompiled = spec ? Handlebars.template((0, eval)("(" + spec + ")")) : null;
  function failure(e, syntax) {
    return JSON.stringify({ok: false, syntax: syntax, message: String((e && e.message) || e),
      line: (e && e.lineNumber) || null,
      column: (dialect === "mustache" && e && typeof e.column === "number") ? e.column : null});
  }
  if (dialect === "ejs") { return JSON.stringify(EjsTemplates.render(source, data, partials)); }
  if (dialect === "mustache") {
    var tree;
    try { tree = Handlebars.parse(source); MustacheSubset.check(tree); }
    catch (e) { return failure(e, true); }
    try {
      return JSON.stringify({ok: true, html: MustacheSubset.render(tree, data, partials)});
    } catch (e) { return failure(e, false); }
  }
  if (helpers) {
    // The template's own helpers: every function its source defines at the top level.
    var before = new Set(Object.getOwnPropertyNames(globalThis));
    try { (0, eval)(helpers); }
    catch (e) { return failure({message: "helpers: " + String((e && e.message) || e)}, false); }
    Object.getOwnPropertyNames(globalThis).forEach(function (name) {
      if (!before.has(name) && typeof globalThis[name] === "function") {
        Handlebars.registerHelper(name, globalThis[name]);
      }
    });
  }
  // Partials by slug: the templates the caller resolved (rendering.engines.partials).
  Object.keys(partials).forEach(function (name) {
    Handlebars.registerPartial(name, partials[name]);
  });
  if (precompiled) {
    try { return JSON.stringify({ok: true, html: precompiled(data)}); }
    catch (e) { return failure(e, false); }
  }
  var ast;
  try { ast = Handlebars.parse(source); } catch (e) { return failure(e, true); }
  try { return JSON.stringify({ok: true, html: Handlebars.compile(ast)(data)}); }
  catch (e) { return failure(e, /doesn't match|Parse error/.test(String(e && e.message))); }
})
"""


def _data_bytes() -> int:
    # VmData: the private writable memory RLIMIT_DATA counts (V8 reserves ~550 MB of it
    # at start, so the ceiling is set from what is used once V8 is up).
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmData in /proc/self/status")


# Past this much more data than after the first isolate, the process retires itself
# (between renders, with this code; a first argument overrides the bytes, for tests).
_GROWTH_RETIRE_BYTES = 128 << 20
EXIT_RETIRED = 75


def _read_exactly(size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = sys.stdin.buffer.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _answer(payload: dict[str, Any] | str, *, retire: bool) -> None:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    # The answer's first byte says whether this process ends after it (R) or serves on (K).
    body = (b"R" if retire else b"K") + text.encode("utf-8")
    sys.stdout.buffer.write(len(body).to_bytes(4, "big") + body)
    sys.stdout.buffer.flush()


def _fresh_isolate(libraries: list[str]) -> Any:
    """A new isolate with `libraries` run in it. Called on the running event loop, so the
    isolate uses it rather than a thread and a loop of its own."""
    from py_mini_racer import MiniRacer

    ctx = MiniRacer()
    for library in libraries:
        ctx.eval(library)
    return ctx


class _CpuWatchdog:
    """Ends this process once the render being watched has spent its seconds of CPU (every
    thread's: V8's own and its collector's). V8's own timeout counts wall time, which on a
    busy host goes to waiting for a core: it is only the cap here. One thread for the
    process, started before the first render: a thread started for each render cost
    ~0.1 ms of CPU and, as start() waits for the new thread to run, a hand-off on the
    worker's wait."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._budget: CpuBudget | None = None
        threading.Thread(target=self._watch, name="cpu-watchdog", daemon=True).start()

    def start(self, seconds: float) -> None:
        with self._changed:
            self._budget = CpuBudget(seconds, time.process_time)
            self._changed.notify()

    def stop(self) -> None:
        # Read under the same lock as the check: once this returns, no exit for this render.
        with self._changed:
            self._budget = None

    def _watch(self) -> None:
        with self._changed:
            while True:
                if self._budget is None:
                    self._changed.wait()
                    continue
                left = self._budget.left()
                if not left:
                    os._exit(EXIT_TIME_LIMIT)
                self._changed.wait(left)


# Precompiled Handlebars templates by the digest of their source: the parse and compile of
# a template in a fresh isolate cost ~10 ms of the invoice sample's ~12 ms (CPU), running its
# precompiled text ~2.6 ms. Kept in this process's memory, outside every isolate: a render's
# code cannot reach them, and a text is only ever made before any render's own code ran in
# its isolate. Large texts are bounded by the process's own retirement: past
# _GROWTH_RETIRE_BYTES of growth it ends, and its memo with it.
_SPECS_KEPT = 64
_specs: DigestMemo[str] = DigestMemo(_SPECS_KEPT)


async def _call(ctx: Any, function_js: str, *args: Any, seconds: float) -> Any:
    """`function_js` applied to `args` (as JSON) in `ctx`, awaited on the running event
    loop; JSTimeoutException past `seconds` of wall time (the task is cancelled, which
    stops the script in V8). A string comes back as it is, with no JSON round trip."""
    from py_mini_racer import JSTimeoutException

    code = f"({function_js}).apply(this, {json.dumps(args, separators=(',', ':'))})"
    try:
        return await asyncio.wait_for(ctx.eval_cancelable(code), timeout=seconds)
    except TimeoutError:
        raise JSTimeoutException from None


def _kept_spec(request: dict[str, Any]) -> str | None:
    """The kept precompiled text of a Handlebars request's source, if there is one."""
    if request.get("dialect", "handlebars") != "handlebars":
        return None
    return _specs.get(digest_of(request["source"]))


async def _spec(ctx: Any, source: str, seconds: float) -> str | None:
    """The source's precompiled text made now in `ctx` (a fresh isolate in which nothing of
    the render has run yet) and kept; None when the source does not parse."""
    made = await _call(ctx, PRECOMPILE_JS, source, seconds=seconds * WALL_CAP_FACTOR)
    if not isinstance(made, str):
        return None
    _specs.put(digest_of(source), made)
    return made


async def _render(
    ctx: Any, request: dict[str, Any], kept: str | None, watchdog: _CpuWatchdog
) -> tuple[dict[str, Any] | str, bool]:
    """The answer, and whether a limit was met (the process retires). `kept`: the source's
    precompiled text, when _kept_spec found one."""
    from py_mini_racer import JSEvalException, JSOOMException, JSTimeoutException

    memory = int(request["memory_bytes"])
    seconds = request["timeout_ms"] / 1000
    dialect = request.get("dialect", "handlebars")
    ctx.set_hard_memory_limit(memory)
    soft, hard = rlimit_cap(resource.RLIMIT_DATA, used=_data_bytes(), budget=memory)
    watchdog.start(seconds)
    try:
        # Under the render's limits: a template's precompile is its own work.
        spec = kept
        if spec is None and dialect == "handlebars":
            spec = await _spec(ctx, request["source"], seconds)
        result = await _call(
            ctx,
            RENDER_JS,
            request["source"],
            request["data"],
            request["helpers"],
            dialect,
            request.get("partials") or {},
            spec,
            seconds=seconds * WALL_CAP_FACTOR,
        )
    except JSTimeoutException:
        return {"limit": "time"}, True
    except (JSOOMException, MemoryError):
        return {"limit": "memory"}, True
    except JSEvalException as exc:
        message = str(exc).splitlines()[0]
        return {"ok": False, "syntax": False, "message": message, "line": None}, False
    finally:
        watchdog.stop()
        # Our own code (the next isolate's start) runs without the template's ceiling.
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))
    return str(result), "allocation failed" in str(result)


def _runtime_serves(request: dict[str, Any], kept: str | None) -> bool:
    """Whether Handlebars' runtime alone can serve the render: a Handlebars template whose
    precompiled text is kept (`kept`, from _kept_spec), with no helpers of its own (which may
    call the compiler) and no partials (registered as sources, compiled when first used)."""
    return kept is not None and not request["helpers"] and not request.get("partials")


def _library(*path: str) -> str:
    return _HERE.joinpath(*path).read_text(encoding="utf-8")


async def _serve(growth_retire_bytes: int) -> int:
    # Each isolate starts with Handlebars' runtime and our helpers (~4.8 ms of CPU); the
    # rest (the compiler, the Mustache subset, EJS: ~5 ms more) is loaded into it only
    # for a render that needs them. Loaded after the runtime, the whole handlebars.js
    # replaces its `Handlebars`, and our helpers are registered again on the new one.
    runtime = [_library("vendor", "handlebars.runtime.min.js"), _library("handlebars_helpers.js")]
    compiler = [
        _library("vendor", "handlebars.min.js"),
        _library("handlebars_helpers.js"),
        _library("mustache_subset.js"),
        _library("vendor", "ejs.min.js"),
        _library("ejs_templates.js"),
    ]
    # The first isolate whole: the memory baseline below has it.
    ctx, complete = _fresh_isolate([*runtime, *compiler]), True
    settled = _data_bytes()
    watchdog = _CpuWatchdog()
    while True:
        header = _read_exactly(4)
        if header is None:
            return 0  # the parent closed our stdin: no more renders
        raw = _read_exactly(int.from_bytes(header, "big"))
        if raw is None:
            return 0
        request = json.loads(raw)
        kept = _kept_spec(request)
        if not complete and not _runtime_serves(request, kept):
            for library in compiler:
                ctx.eval(library)
        answer, limit_met = await _render(ctx, request, kept, watchdog)
        # The answer goes out before the isolate closes: the worker waits for it, and the
        # close (~0.5 ms of CPU, more of wall time on a busy host) is none of its render.
        _answer(answer, retire=limit_met)
        ctx.close()
        if limit_met:
            return 0
        if _data_bytes() > settled + growth_retire_bytes:
            # Memory stayed used after the isolate closed: end before reading another
            # request. The parent sees this code and sends that request to a new process.
            return EXIT_RETIRED
        ctx, complete = _fresh_isolate(runtime), False


def main() -> int:
    growth = int(sys.argv[1]) if len(sys.argv) > 1 else _GROWTH_RETIRE_BYTES
    # Reading stdin blocks the loop between renders; nothing of an isolate's runs then.
    return asyncio.run(_serve(growth))


if __name__ == "__main__":
    code = 0
    try:
        code = main()
    except MemoryError:
        code = 71  # past the ceiling outside V8: the parent reports the memory limit
    except BaseException:
        code = 70
    # Never wait for mini-racer's threads at exit (closing isolates there can hang).
    os._exit(code)
