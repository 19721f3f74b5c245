"""Handlebars: the official handlebars.js inside an embedded V8 isolate (mini-racer).

pybars3 compiles templates to Python source and exec()s it, so an untrusted template
would run as Python in the worker. Here the template only ever runs as JavaScript in an
isolate that has no file, network or process access, with a time and a memory limit, and
each render gets a fresh isolate so one tenant's template cannot leave state for another.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import queue
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from py_mini_racer import (
    JSEvalException,
    JSOOMException,
    JSParseException,
    JSTimeoutException,
    MiniRacer,
)

from rendering.engines.excerpt import column_from_jison, source_excerpt
from rendering.errors import LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.limits import DEFAULT_LIMITS, Limits, size_text

_VENDOR = Path(__file__).with_name("vendor")
_HANDLEBARS_JS = (_VENDOR / "handlebars.min.js").read_text(encoding="utf-8")
_HELPERS_JS = (_VENDOR.parent / "handlebars_helpers.js").read_text(encoding="utf-8")

# Results cross the boundary as JSON text so no JS object proxy outlives the isolate.
_RENDER_JS = """
(function (source, data, helpers) {
  function failure(e, syntax) {
    return JSON.stringify({ok: false, syntax: syntax, message: String((e && e.message) || e),
      line: (e && e.lineNumber) || null,
      column: (e && typeof e.column === "number") ? e.column : null});
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
  var ast;
  try { ast = Handlebars.parse(source); } catch (e) { return failure(e, true); }
  try { return JSON.stringify({ok: true, html: Handlebars.compile(ast)(data)}); }
  catch (e) { return failure(e, /doesn't match|Parse error/.test(String(e && e.message))); }
})
"""
_PARSE_JS = """
(function (source) {
  try { Handlebars.parse(source); return JSON.stringify({ok: true}); }
  catch (e) { return JSON.stringify({ok: false, message: String((e && e.message) || e),
    line: (e && e.lineNumber) || null,
    column: (e && typeof e.column === "number") ? e.column : null}); }
})
"""

_T = TypeVar("_T")
_parser: MiniRacer | None = None
# Isolates stopped by a time limit: V8 reports the termination asynchronously, and closing
# one before that report lands makes mini-racer call into a closed event loop. Each is
# closed at the next render instead, long after its report arrived.
_terminated: list[MiniRacer] = []


class _V8Thread:
    """The process's one thread that makes, uses and closes isolates. mini-racer crashes
    the process (SIGSEGV) making an isolate once a thread that made a still-open one has
    ended, or closing an isolate from another thread at exit; and Django's ASGI handler
    runs each request's sync code on a thread that ends with the request. A daemon, so it
    still serves the atexit hook that closes the shared parser."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]]]
        self._jobs = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="v8", daemon=True).start()

    def _serve(self) -> None:
        while True:
            work, args, future = self._jobs.get()
            try:
                future.set_result(work(*args))
            except BaseException as exc:
                future.set_exception(exc)

    def run(self, work: Callable[..., _T], *args: Any) -> _T:
        future: Future[_T] = Future()
        self._jobs.put((work, args, future))
        return future.result()


_v8_lock = threading.Lock()
_v8: _V8Thread | None = None


def _on_v8_thread(work: Callable[..., _T], *args: Any) -> _T:
    """Run `work` on the V8 thread. Per process: a forked worker child starts its own
    thread and parser (the parent's thread does not cross a fork)."""
    global _v8, _parser
    with _v8_lock:
        if _v8 is None or _v8.pid != os.getpid():
            _v8 = _V8Thread()
            _parser = None
            _terminated.clear()
        v8 = _v8
    return v8.run(work, *args)


def _close_all() -> None:
    global _parser
    _close_terminated()
    if _parser is not None:
        _parser.close()
        _parser = None


@atexit.register
def _close_at_exit() -> None:
    if _v8 is not None and _v8.pid == os.getpid():
        _v8.run(_close_all)


def _close_terminated() -> None:
    while _terminated:
        _terminated.pop().close()


def _new_isolate() -> MiniRacer:
    ctx = MiniRacer()
    ctx.eval(_HANDLEBARS_JS)
    ctx.eval(_HELPERS_JS)
    return ctx


_PARSED_MAX = 256
# Parse results by the source's SHA-256: integrators send the same inline template again
# and again, and a parse costs an isolate call (~1-20 ms) on the submit path.
_parsed: OrderedDict[bytes, dict[str, Any]] = OrderedDict()


def _parse(source: str) -> dict[str, Any]:
    """On the V8 thread (see _on_v8_thread), so the cache needs no lock."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    if digest in _parsed:
        _parsed.move_to_end(digest)
        return _parsed[digest]
    result = _parse_uncached(source)
    _parsed[digest] = result
    while len(_parsed) > _PARSED_MAX:
        _parsed.popitem(last=False)
    return result


def _parse_uncached(source: str) -> dict[str, Any]:
    # Parsing runs no template code, so one isolate per process is safe to share (only
    # the V8 thread uses it) and keeps the syntax check at submit time off the ~15 ms
    # isolate start-up.
    global _parser
    if _parser is None:
        _parser = _new_isolate()
    # No time limit: parsing runs no template code and the source size is capped.
    return dict(json.loads(_parser.call(_PARSE_JS, source)))


_JISON_LINE = re.compile(r"^(?:Parse|Lexical) error on line (\d+)[:.]")
_AT_LINE_COLUMN = re.compile(r"\s+-\s+(\d+):(\d+)$")


def _syntax_error(source: str, result: dict[str, Any]) -> TemplateSyntaxError:
    """handlebars' whole message, its reason first ("Expecting 'OPEN_ENDBLOCK', got 'EOF'"),
    then the failing line of the source with a caret under the column."""
    message = str(result.get("message") or "invalid template").strip()
    line, column = result.get("line"), result.get("column")
    parts = message.splitlines()
    jison = _JISON_LINE.match(parts[0])
    if jison and len(parts) >= 3 and parts[2].rstrip().endswith("^"):
        # "Parse error on line N:", jison's excerpt and caret, then the reason.
        line = int(jison.group(1))
        reason = " ".join(parts[3:]) or parts[0]
        lines = source.splitlines() or [""]
        line_text = lines[min(line, len(lines)) - 1]
        column = column_from_jison(line_text, parts[1][: len(parts[2].rstrip()) - 1])
    else:
        reason = " ".join(parts)
        if found := _AT_LINE_COLUMN.search(reason):  # "if doesn't match each - 2:5"
            line, column = int(found.group(1)), int(found.group(2))
            reason = reason[: found.start()]
    if not line:
        return TemplateSyntaxError(f"Template syntax error: {reason}")
    excerpt = source_excerpt(source, line, column)
    return TemplateSyntaxError(
        f"Template syntax error on line {line}: {reason}\n{excerpt}", line=line
    )


_V8_LINE = re.compile(r"^<anonymous>:(\d+): (.*)$", re.MULTILINE)


# `new Function(body)` parses without running; V8 numbers its lines after a two-line header.
_FUNCTION_HEADER_LINES = 2


def _helpers_syntax_error(ctx: MiniRacer, helpers: str, first: str) -> TemplateSyntaxError:
    """V8's message at the real line of helpers that do not parse. The load appends a line
    (see _helpers_load), which moves an error at the end of the helpers ("function oops(
    {") onto it, so they are parsed again on their own as a function body: that parses
    without running them."""
    lines = helpers.splitlines() or [""]
    try:
        ctx.eval(f"new Function({json.dumps(helpers)})")
        text, offset = first, 0  # fine as a function body (a top-level `return`): V8's first
    except JSEvalException as exc:
        text, offset = str(exc), _FUNCTION_HEADER_LINES
    found = _V8_LINE_ANY.search(text)
    message = found.group(2) if found else text.strip().splitlines()[0]
    line, column = len(lines), len(lines[-1])
    if found and 1 <= int(found.group(1)) - offset <= len(lines):
        line = int(found.group(1)) - offset
        column = _v8_caret_column(text, lines[line - 1]) or 0
    elif found:  # past the last line: the helpers ended too early
        message = "SyntaxError: Unexpected end of input"
    excerpt = source_excerpt(helpers, line, column)
    return TemplateSyntaxError(
        f"Helpers syntax error on line {line}: {message}\n{excerpt}", line=line
    )


_V8_LINE_ANY = re.compile(r"^(?:<anonymous>|undefined):(\d+): (.*)$", re.MULTILINE)


def _v8_caret_column(message: str, line_text: str) -> int | None:
    """V8 prints the failing line, then a caret under the column."""
    parts = message.splitlines()
    for index, text in enumerate(parts[:-1]):
        caret = parts[index + 1]
        if text == line_text and caret.strip() == "^":
            return caret.index("^")
    return None


_QUOTED = re.compile(r'"([^"]{1,100})"')


def _runtime_error(source: str, message: str, line: int | None) -> TemplateRuntimeError:
    """handlebars.js reports most runtime errors (a missing helper, a helper that threw)
    without a position; name the first line that uses the helper the message quotes."""
    first = message.strip().splitlines()[0] if message.strip() else "template error"
    if line is None:
        quoted = _QUOTED.search(first) or re.search(r"^(\w+):", first)
        if quoted:
            use = re.compile(r"\{\{~?[#^/>]?\s*" + re.escape(quoted.group(1)) + r"(?=[\s}~])")
            for number, text in enumerate(source.splitlines(), start=1):
                if use.search(text):
                    line = number
                    break
    where = f" on line {line}" if line else ""
    return TemplateRuntimeError(f"Template error{where}: {first}", line=line)


class HandlebarsEngine:
    name = "handlebars"

    def check(self, source: str) -> None:
        result = _on_v8_thread(_parse, source)
        if not result["ok"]:
            raise _syntax_error(source, result)

    def check_helpers(self, helpers: str, limits: Limits = DEFAULT_LIMITS) -> None:
        """Load the helpers in a throwaway isolate, under the render's limits: a syntax
        error (with its line) or a top-level error is reported before anything is queued."""
        if helpers.strip():
            _on_v8_thread(_helpers_load, helpers, limits)

    def render(
        self,
        source: str,
        data: dict[str, Any],
        limits: Limits = DEFAULT_LIMITS,
        helpers: str = "",
    ) -> str:
        raw = _on_v8_thread(_render_raw, source, data, limits, helpers)
        result = json.loads(raw)
        if result["ok"]:
            html = str(result["html"])
            if len(html) > limits.max_html_bytes:
                raise LimitExceeded(
                    "The rendered HTML is larger than the "
                    f"{size_text(limits.max_html_bytes)} allowed."
                )
            return html
        if result["syntax"]:
            raise _syntax_error(source, result)
        raise _runtime_error(source, result["message"], result["line"])


def _helpers_load(helpers: str, limits: Limits) -> None:
    """On the V8 thread: HandlebarsEngine.check_helpers."""
    _close_terminated()
    ctx = MiniRacer()
    ctx.set_hard_memory_limit(limits.template_max_memory_mb * 1024 * 1024)
    try:
        # The script's completion value is made `undefined`: a value mini-racer cannot
        # convert (a BigInt like `1n`) fails on its event loop, the eval then waits out
        # the time limit, and closing that isolate later crashed the web process. The
        # appended line does not move the line numbers of a syntax error.
        ctx.eval(f"{helpers}\n;void 0", timeout_sec=limits.template_timeout_ms / 1000)
    except JSParseException as exc:
        error = _helpers_syntax_error(ctx, helpers, str(exc))
        ctx.close()
        raise error from None
    except (JSTimeoutException, JSOOMException):
        _terminated.append(ctx)
        raise LimitExceeded(
            f"The helpers took longer than {limits.template_timeout_ms} ms or more than "
            f"{limits.template_max_memory_mb} MB to load."
        ) from None
    except JSEvalException as exc:
        ctx.close()
        found = _V8_LINE.search(str(exc))
        if found is None:
            raise TemplateRuntimeError("Helpers error: their top-level code failed.") from None
        line = int(found.group(1))
        raise TemplateRuntimeError(
            f"Helpers error on line {line}: {found.group(2)}", line=line
        ) from None
    ctx.close()


def _render_raw(source: str, data: dict[str, Any], limits: Limits, helpers: str) -> str:
    """On the V8 thread: the render's JSON answer, in a fresh isolate."""
    _close_terminated()
    ctx = _new_isolate()
    ctx.set_hard_memory_limit(limits.template_max_memory_mb * 1024 * 1024)
    try:
        raw = ctx.call(
            _RENDER_JS, source, data, helpers, timeout_sec=limits.template_timeout_ms / 1000
        )
    except JSTimeoutException:
        _terminated.append(ctx)
        raise LimitExceeded(
            f"The template took longer than {limits.template_timeout_ms} ms to render."
        ) from None
    except JSOOMException:
        _terminated.append(ctx)  # stopped like a timed-out one: close it later
        raise LimitExceeded(
            f"The template used more than {limits.template_max_memory_mb} MB to render."
        ) from None
    except JSEvalException as exc:
        ctx.close()
        raise TemplateRuntimeError(f"Template error: {str(exc).splitlines()[0]}") from None
    ctx.close()
    return str(raw)
