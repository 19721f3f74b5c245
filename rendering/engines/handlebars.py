"""Handlebars: the official handlebars.js inside an embedded V8 isolate (mini-racer).

pybars3 compiles templates to Python source and exec()s it, so an untrusted template
would run as Python in the worker. Here the template only ever runs as JavaScript in an
isolate that has no file, network or process access, with a time and a memory limit, and
each render gets a fresh isolate so one tenant's template cannot leave state for another.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from py_mini_racer import JSEvalException, JSOOMException, JSTimeoutException, MiniRacer

from rendering.errors import LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.limits import DEFAULT_LIMITS, Limits

_VENDOR = Path(__file__).with_name("vendor")
_HANDLEBARS_JS = (_VENDOR / "handlebars.min.js").read_text(encoding="utf-8")
_HELPERS_JS = (_VENDOR.parent / "handlebars_helpers.js").read_text(encoding="utf-8")

# Results cross the boundary as JSON text so no JS object proxy outlives the isolate.
_RENDER_JS = """
(function (source, data) {
  function failure(e, syntax) {
    return JSON.stringify({ok: false, syntax: syntax, message: String((e && e.message) || e),
      line: (e && e.lineNumber) || null});
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


def _parse(source: str) -> dict[str, Any]:
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

    def render(self, source: str, data: dict[str, Any], limits: Limits = DEFAULT_LIMITS) -> str:
        _close_terminated()
        ctx = _new_isolate()
        ctx.set_hard_memory_limit(limits.template_max_memory_mb * 1024 * 1024)
        try:
            raw = ctx.call(_RENDER_JS, source, data, timeout_sec=limits.template_timeout_ms / 1000)
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
