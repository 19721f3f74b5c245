"""One Handlebars, Mustache or EJS render in a process of its own, under an OS memory ceiling.

Run as a script (`python -I v8_child.py`) by rendering.engines.v8_process, with an empty
environment; it imports nothing of the project. It starts V8 and loads handlebars.js,
then blocks on stdin for one request (so a spare one waits ready), sets RLIMIT_DATA to
what it uses now plus the template's memory budget (V8's heap limit does not count
ArrayBuffers: 390 MB allocated under a 16 MB limit), renders, writes the JSON answer to
stdout and exits. A helper that allocates past the ceiling gets a RangeError or ends
this process; the worker that started it only sees a failed render.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent

# Results cross the boundary as JSON text so no JS object proxy outlives the isolate.
RENDER_JS = """
(function (source, data, helpers, dialect, partials) {
  partials = partials || {};
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


def _answer(payload: dict[str, Any] | str) -> None:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    sys.stdout.write(text)
    sys.stdout.flush()


def main() -> None:
    from py_mini_racer import JSEvalException, JSOOMException, JSTimeoutException, MiniRacer

    ctx = MiniRacer()
    ctx.eval((_HERE / "vendor" / "handlebars.min.js").read_text(encoding="utf-8"))
    ctx.eval((_HERE / "handlebars_helpers.js").read_text(encoding="utf-8"))
    ctx.eval((_HERE / "mustache_subset.js").read_text(encoding="utf-8"))
    ctx.eval((_HERE / "vendor" / "ejs.min.js").read_text(encoding="utf-8"))
    ctx.eval((_HERE / "ejs_templates.js").read_text(encoding="utf-8"))
    raw = sys.stdin.buffer.read()
    if not raw:
        return  # a spare whose parent went away
    request = json.loads(raw)
    memory = int(request["memory_bytes"])
    ctx.set_hard_memory_limit(memory)
    _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    ceiling = _data_bytes() + memory
    if hard != resource.RLIM_INFINITY:
        ceiling = min(ceiling, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (ceiling, hard))
    try:
        result = ctx.call(
            RENDER_JS,
            request["source"],
            request["data"],
            request["helpers"],
            request.get("dialect", "handlebars"),
            request.get("partials") or {},
            timeout_sec=request["timeout_ms"] / 1000,
        )
    except JSTimeoutException:
        _answer({"limit": "time"})
    except (JSOOMException, MemoryError):
        _answer({"limit": "memory"})
    except JSEvalException as exc:
        _answer({"ok": False, "syntax": False, "message": str(exc).splitlines()[0], "line": None})
    else:
        _answer(str(result))


if __name__ == "__main__":
    code = 0
    try:
        main()
    except MemoryError:
        code = 71  # past the ceiling outside V8: the parent reports the memory limit
    except BaseException:
        code = 70
    # Never wait for mini-racer's threads at exit (closing isolates there can hang).
    os._exit(code)
