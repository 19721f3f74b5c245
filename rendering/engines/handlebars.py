"""Handlebars: the official handlebars.js inside an embedded V8 isolate (mini-racer).

pybars3 compiles templates to Python source and exec()s it, so an untrusted template
would run as Python in the worker. Here the template only ever runs as JavaScript in an
isolate that has no file, network or process access, with a time and a memory limit, in
a child process of its own under an OS memory ceiling (rendering.engines.v8_process).
The process that checks a submit only parses: the template with handlebars.js's parser,
the helpers compiled as a function body that is never called.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import re
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from py_mini_racer import MiniRacer

from rendering.digest_memo import DigestMemo, digest_of
from rendering.engines.excerpt import column_from_jison, source_excerpt
from rendering.engines.v8_flags import v8_start
from rendering.engines.v8_process import v8_render
from rendering.errors import (
    TemplateRuntimeError,
    TemplateSyntaxError,
    html_too_large,
)
from rendering.limits import DEFAULT_LIMITS, Limits

_VENDOR = Path(__file__).with_name("vendor")
_HANDLEBARS_JS = (_VENDOR / "handlebars.min.js").read_text(encoding="utf-8")
_HELPERS_JS = (_VENDOR.parent / "handlebars_helpers.js").read_text(encoding="utf-8")
_MUSTACHE_JS = (_VENDOR.parent / "mustache_subset.js").read_text(encoding="utf-8")
_EJS_JS = (_VENDOR / "ejs.min.js").read_text(encoding="utf-8")
_EJS_TEMPLATES_JS = (_VENDOR.parent / "ejs_templates.js").read_text(encoding="utf-8")

# `dialect` "mustache" also refuses what only Handlebars has (mustache_subset.js); "ejs"
# compiles with ejs, which builds the template's function without calling it.
_PARSE_JS = """
(function (source, dialect) {
  if (dialect === "ejs") { return JSON.stringify(EjsTemplates.check(source)); }
  try {
    var tree = Handlebars.parse(source);
    if (dialect === "mustache") { MustacheSubset.check(tree); }
    return JSON.stringify({ok: true});
  }
  catch (e) { return JSON.stringify({ok: false, message: String((e && e.message) || e),
    line: (e && e.lineNumber) || null,
    column: (e && typeof e.column === "number" && dialect === "mustache") ? e.column : null}); }
})
"""
# The helpers' syntax, compiled as a function body and never called: `new Function`
# parses its body on its own (a `})` cannot close it early), and runs none of it. V8 gives
# no line for such an error, so it is the first line whose prefix fails the same way.
_HELPERS_SYNTAX_JS = """
(function (src) {
  function fails(text) { try { new Function(text); return null; } catch (e) { return String(e); } }
  var full = fails(src);
  if (full === null) { return JSON.stringify({ok: true}); }
  var lines = src.split("\\n"), lo = 1, hi = lines.length;
  while (lo < hi) {
    var mid = (lo + hi) >> 1;
    if (fails(lines.slice(0, mid).join("\\n")) === full) { hi = mid; } else { lo = mid + 1; }
  }
  return JSON.stringify({ok: false, message: full, line: lo});
})
"""

_T = TypeVar("_T")
# Parser isolates per process, each on a thread of its own: a parse runs outside the GIL,
# and a 512 KB template takes ~1.2 s to parse, so with one thread every tenant's submit
# queued behind the largest one. A check goes to the least busy thread.
_V8_THREADS = 4


class _V8Thread:
    """A thread that makes, uses and closes its own parser isolate. mini-racer crashes the
    process (SIGSEGV) making an isolate once a thread that made a still-open one has
    ended, or closing an isolate from another thread at exit; and Django's ASGI handler
    runs each request's sync code on a thread that ends with the request. A daemon, so it
    still serves the atexit hook that closes its parser."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.pending = 0  # changed under _v8_lock
        self.parser: MiniRacer | None = None  # used only on this thread
        self._jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]]]
        self._jobs = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="v8", daemon=True).start()

    def _serve(self) -> None:
        while True:
            work, args, future = self._jobs.get()
            try:
                future.set_result(work(self, *args))
            except BaseException as exc:
                future.set_exception(exc)

    def run(self, work: Callable[..., _T], *args: Any) -> _T:
        future: Future[_T] = Future()
        self._jobs.put((work, args, future))
        return future.result()


_v8_lock = threading.Lock()
_v8: list[_V8Thread] = []


def _on_v8_thread(work: Callable[..., _T], *args: Any) -> _T:
    """Run `work(thread, *args)` on the least busy V8 thread. Per process: a forked worker
    child starts its own threads and parsers (the parent's threads do not cross a fork)."""
    with _v8_lock:
        if not _v8 or _v8[0].pid != os.getpid():
            _v8[:] = [_V8Thread() for _ in range(_V8_THREADS)]
        v8 = min(_v8, key=lambda thread: thread.pending)
        v8.pending += 1
    try:
        return v8.run(work, *args)
    finally:
        with _v8_lock:
            v8.pending -= 1


def _close_parser(thread: _V8Thread) -> None:
    if thread.parser is not None:
        thread.parser.close()
        thread.parser = None


@atexit.register
def _close_at_exit() -> None:
    for thread in _v8:
        if thread.pid == os.getpid():
            thread.run(_close_parser)


# V8's first isolates, made at once on several threads, can abort the process ("Check
# failed: !IsConfigurablePoolInitialized()" in mini-racer 0.14: 3 fresh processes in 40
# when four parser threads started together). A web process's first concurrent submits
# did just that: the process died and its requests went unanswered. Made one at a time.
_isolate_start_lock = threading.Lock()


def _new_isolate() -> MiniRacer:
    v8_start()
    with _isolate_start_lock:
        ctx = MiniRacer()
    ctx.eval(_HANDLEBARS_JS)
    ctx.eval(_HELPERS_JS)
    ctx.eval(_MUSTACHE_JS)
    ctx.eval(_EJS_JS)
    ctx.eval(_EJS_TEMPLATES_JS)
    return ctx


def _parser_of(thread: _V8Thread) -> MiniRacer:
    # Parsing runs no template code, so each thread's isolate is reused for every check,
    # which keeps the submit path off the ~15 ms isolate start-up.
    if thread.parser is None:
        thread.parser = _new_isolate()
    return thread.parser


# Parse results by the source: integrators send the same inline template again and again,
# and a parse costs an isolate call (~1-20 ms, 1.2 s for 512 KB) on the submit path.
_parsed: DigestMemo[dict[str, Any]] = DigestMemo(256)


def _parse_cached(source: str, dialect: str = "handlebars") -> dict[str, Any]:
    digest = digest_of(dialect, source)
    result = _parsed.get(digest)
    if result is None:
        result = _on_v8_thread(_parse, source, dialect)
        _parsed.put(digest, result)
    return result


def _parse(thread: _V8Thread, source: str, dialect: str) -> dict[str, Any]:
    # No time limit: parsing runs no template code and the source size is capped.
    return dict(json.loads(_parser_of(thread).call(_PARSE_JS, source, dialect)))


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


def _helpers_syntax_error(helpers: str, message: str, line: int | None) -> TemplateSyntaxError:
    """V8's message at the helpers' line (the shortest start of them that fails the same
    way), with that line shown: at its end when the input ended too early."""
    first = message.strip().splitlines()[0] if message.strip() else "invalid JavaScript"
    if not line:
        return TemplateSyntaxError(f"Helpers syntax error: {first}")
    lines = helpers.splitlines() or [""]
    text = lines[min(line, len(lines)) - 1]
    column = len(text) if "end of input" in first else len(text) - len(text.lstrip())
    excerpt = source_excerpt(helpers, line, column)
    return TemplateSyntaxError(
        f"Helpers syntax error on line {line}: {first}\n{excerpt}", line=line
    )


_QUOTED = re.compile(r'"([^"]{1,100})"')


def _runtime_error(
    source: str, message: str, line: int | None, dialect: str = "handlebars"
) -> TemplateRuntimeError:
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
    return TemplateRuntimeError(
        f"Template error{where}: {first}{_how_to_define(first, dialect)}", line=line
    )


_MISSING_HELPER = re.compile(r'^Missing helper: "([\w$.-]{1,100})"')
_NOT_DEFINED = re.compile(r"^([\w$]{1,100}) is not defined")


def _how_to_define(message: str, dialect: str) -> str:
    """How to make what the template calls and nobody defined."""
    if found := _MISSING_HELPER.match(message):
        name = found.group(1)
        return (
            f". Define it in the template's helpers (JavaScript; each top-level function is "
            f"a helper): function {name}(value, options) {{ return String(value); }}. The "
            "built-in helpers are eq, ne, gt, lt, add, subtract, multiply, divide, sum, "
            "sumProduct, formatNumber, formatCurrency, formatDate, odd, upper, json, chart, "
            "pageBreak and toc."
        )
    if dialect == "ejs" and (found := _NOT_DEFINED.match(message)):
        name = found.group(1)
        return (
            f". An EJS template defines its own functions: <% function {name}(value) "
            f"{{ return String(value); }} %> before the first use; a value that may be absent "
            f"from the data is read as locals.{name}."
        )
    return ""


class HandlebarsEngine:
    name = "handlebars"
    label = "Handlebars"
    dialect = "handlebars"

    def _dialect_check(self, source: str) -> None:
        """What this dialect refuses before its parser or a render sees the source."""

    def check(self, source: str) -> None:
        self._dialect_check(source)
        result = _parse_cached(source, self.dialect)
        if not result["ok"]:
            raise _syntax_error(source, result)

    def check_helpers(self, helpers: str, limits: Limits = DEFAULT_LIMITS) -> None:
        """A syntax error in the helpers (with its line), found without running them:
        this runs where requests are answered, and tenant code runs only on workers."""
        if helpers.strip():
            result = _on_v8_thread(_helpers_syntax, helpers)
            if not result["ok"]:
                raise _helpers_syntax_error(helpers, result["message"], result["line"])

    def render(
        self,
        source: str,
        data: dict[str, Any],
        limits: Limits = DEFAULT_LIMITS,
        helpers: str = "",
        *,
        partials: Mapping[str, str] | None = None,
    ) -> str:
        self._dialect_check(source)
        result = v8_render(
            source=source,
            data=data,
            helpers=helpers,
            timeout_ms=limits.template_timeout_ms,
            memory_mb=limits.template_max_memory_mb,
            dialect=self.dialect,
            partials=partials,
        )
        if result["ok"]:
            html = str(result["html"])
            if len(html) > limits.max_html_bytes:
                raise html_too_large(limits.max_html_bytes)
            return html
        if result["syntax"]:
            raise _syntax_error(source, result)
        raise _runtime_error(source, result["message"], result["line"], self.dialect)


def _helpers_syntax(thread: _V8Thread, helpers: str) -> dict[str, Any]:
    """On a V8 thread, in its parser isolate: nothing of the helpers runs."""
    return dict(json.loads(_parser_of(thread).call(_HELPERS_SYNTAX_JS, helpers)))


class MustacheEngine(HandlebarsEngine):
    """Mustache as the Handlebars subset it is: the same parser, isolate and limits, with
    what only Handlebars has refused at check (mustache_subset.js), names looked up
    through the enclosing sections (handlebars.js compat mode), mustache.js's falsy values,
    partials by slug (`{{> slug}}`) and no helpers. Not there: set delimiters
    (`{{=<% %>=}}`) and lambdas (JSON data has no functions)."""

    name = "mustache"
    label = "Mustache"
    dialect = "mustache"

    def _dialect_check(self, source: str) -> None:
        _set_delimiters_check(source)


_SET_DELIMITERS = re.compile(r"\{\{=")


def _set_delimiters_check(source: str) -> None:
    if found := _SET_DELIMITERS.search(source):
        line = source.count("\n", 0, found.start()) + 1
        column = found.start() - (source.rfind("\n", 0, found.start()) + 1)
        excerpt = source_excerpt(source, line, column)
        raise TemplateSyntaxError(
            f"Template syntax error on line {line}: set delimiters ({{{{=<% %>=}}}}) are not "
            f"supported; keep {{{{ }}}}.\n{excerpt}",
            line=line,
        )


class EjsEngine(HandlebarsEngine):
    """EJS (the real ejs library) in the same parser threads, one-render child process and
    limits as Handlebars (ejs_templates.js): `<%= %>` escapes, `<%- %>` does not, and
    `include('slug')` finds only the partials given. Only the dialect differs, so it shares
    the machinery; it takes no helpers (a template is JavaScript and defines its own)."""

    name = "ejs"
    label = "EJS"
    dialect = "ejs"
