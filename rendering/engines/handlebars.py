"""Handlebars: the official handlebars.js inside an embedded V8 isolate (mini-racer).

pybars3 compiles templates to Python source and exec()s it, so an untrusted template
would run as Python in the worker. Here the template only ever runs as JavaScript in an
isolate that has no file, network or process access, with a time and a memory limit, and
each render gets a fresh isolate so one tenant's template cannot leave state for another.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from py_mini_racer import (
    JSEvalException,
    JSOOMException,
    JSParseException,
    JSTimeoutException,
    MiniRacer,
)

from rendering.errors import LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.limits import DEFAULT_LIMITS, Limits

_VENDOR = Path(__file__).with_name("vendor")
_HANDLEBARS_JS = (_VENDOR / "handlebars.min.js").read_text(encoding="utf-8")
_HELPERS_JS = (_VENDOR.parent / "handlebars_helpers.js").read_text(encoding="utf-8")

# Results cross the boundary as JSON text so no JS object proxy outlives the isolate.
_RENDER_JS = """
(function (source, data, helpers) {
  function failure(e, syntax) {
    return JSON.stringify({ok: false, syntax: syntax, message: String((e && e.message) || e),
      line: (e && e.lineNumber) || null});
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
    line: (e && e.lineNumber) || null}); }
})
"""

_parser_lock = threading.Lock()
_parser: MiniRacer | None = None
# Isolates stopped by a time limit: V8 reports the termination asynchronously, and closing
# one before that report lands makes mini-racer call into a closed event loop. Each is
# closed at the next render instead, long after its report arrived.
_terminated: list[MiniRacer] = []


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
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    with _parser_lock:
        if digest in _parsed:
            _parsed.move_to_end(digest)
            return _parsed[digest]
    result = _parse_uncached(source)
    with _parser_lock:
        _parsed[digest] = result
        while len(_parsed) > _PARSED_MAX:
            _parsed.popitem(last=False)
    return result


def _parse_uncached(source: str) -> dict[str, Any]:
    # Parsing runs no template code, so one isolate per process is safe to share (behind a
    # lock: an isolate is single-threaded) and keeps the syntax check at submit time off
    # the ~15 ms isolate start-up. Per-thread would not do: Django's ASGI handler runs each
    # request's sync code on a thread of its own.
    global _parser
    with _parser_lock:
        if _parser is None:
            _parser = _new_isolate()
        # No time limit: parsing runs no template code and the source size is capped, and
        # mini-racer refuses a timeout on a thread with a running asyncio loop.
        return json.loads(_parser.call(_PARSE_JS, source))


def _syntax_error(message: str, line: int | None) -> TemplateSyntaxError:
    first = message.strip().splitlines()[0] if message.strip() else "invalid template"
    if line is None:
        for token in first.replace("-", " ").split():
            if ":" in token and token.split(":")[0].isdigit():
                line = int(token.split(":")[0])
                break
    where = f" on line {line}" if line and "line" not in first else ""
    return TemplateSyntaxError(f"Template syntax error{where}: {first}", line=line)


_V8_LINE = re.compile(r"^<anonymous>:(\d+): (.*)$", re.MULTILINE)


def _helpers_syntax_error(message: str) -> TemplateSyntaxError:
    """V8 reports "<anonymous>:LINE: SyntaxError: ..." for a script that does not parse."""
    found = _V8_LINE.search(message)
    if found is None:
        first = message.strip().splitlines()[0] if message.strip() else "invalid JavaScript"
        return TemplateSyntaxError(f"Helpers syntax error: {first}")
    line = int(found.group(1))
    return TemplateSyntaxError(f"Helpers syntax error on line {line}: {found.group(2)}", line=line)


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
        result = _parse(source)
        if not result["ok"]:
            raise _syntax_error(result["message"], result["line"])

    def check_helpers(self, helpers: str, limits: Limits = DEFAULT_LIMITS) -> None:
        """Load the helpers in a throwaway isolate, under the render's limits: a syntax
        error (with its line) or a top-level error is reported before anything is queued."""
        if not helpers.strip():
            return
        _close_terminated()
        ctx = MiniRacer()
        ctx.set_hard_memory_limit(limits.template_max_memory_mb * 1024 * 1024)
        try:
            ctx.eval(helpers, timeout_sec=limits.template_timeout_ms / 1000)
        except JSParseException as exc:
            ctx.close()
            raise _helpers_syntax_error(str(exc)) from None
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

    def render(
        self,
        source: str,
        data: dict[str, Any],
        limits: Limits = DEFAULT_LIMITS,
        helpers: str = "",
    ) -> str:
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
        result = json.loads(raw)
        if result["ok"]:
            html = str(result["html"])
            if len(html) > limits.max_html_bytes:
                raise LimitExceeded(
                    f"The rendered HTML is larger than the {limits.max_html_bytes} bytes allowed."
                )
            return html
        if result["syntax"]:
            raise _syntax_error(result["message"], result["line"])
        raise _runtime_error(source, result["message"], result["line"])
