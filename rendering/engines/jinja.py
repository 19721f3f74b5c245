"""Jinja2 in its immutable sandbox: untrusted authors cannot reach Python objects or mutate data."""

from __future__ import annotations

import json
import operator
from typing import Any
from urllib.parse import quote

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from markupsafe import Markup

from rendering.deadline import DeadlineExceeded, deadline
from rendering.errors import LimitExceeded, TemplateRuntimeError, TemplateSyntaxError
from rendering.limits import DEFAULT_LIMITS, Limits


def _chart(spec: Any) -> Markup:
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except json.JSONDecodeError:
            raise TemplateRuntimeError("chart(): the spec string is not valid JSON.") from None
    if not isinstance(spec, dict):
        raise TemplateRuntimeError("chart(): needs a Vega-Lite spec object.")
    encoded = quote(json.dumps(spec), safe="")
    return Markup(f'<img class="chart" src="vega-lite:{encoded}">')  # noqa: S704 - quoted above


def _page_break() -> Markup:
    return Markup("<pdf:nextpage></pdf:nextpage>")


def _toc() -> Markup:
    return Markup("<pdf:toc></pdf:toc>")


class _Environment(ImmutableSandboxedEnvironment):
    """Caps what one operator can allocate: `"x" * 10**8` is refused before it is built."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, *, max_bytes: int, **options: Any) -> None:
        super().__init__(**options)
        self.max_bytes = max_bytes

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        limit = self.max_bytes
        if operator_name == "*":
            sized = left if isinstance(left, str | list | tuple) else right
            count = right if sized is left else left
            if isinstance(sized, str | list | tuple) and isinstance(count, int):
                if len(sized) * count > limit:
                    raise LimitExceeded(
                        f"The template builds a value larger than the {limit} bytes allowed."
                    )
            return operator.mul(left, right)
        if isinstance(right, int | float) and isinstance(left, int | float) and abs(right) > 1000:
            raise LimitExceeded("The template raises a number to too large a power.")
        return operator.pow(left, right)


def _environment(limits: Limits) -> ImmutableSandboxedEnvironment:
    # A fresh environment per render: no cache or global is shared between tenants.
    env = _Environment(max_bytes=limits.max_html_bytes, autoescape=True, loader=None, cache_size=0)
    env.globals.update(chart=_chart, page_break=_page_break, toc=_toc)
    return env


class JinjaEngine:
    name = "jinja2"

    def check(self, source: str) -> None:
        try:
            _environment(DEFAULT_LIMITS).parse(source)
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateSyntaxError(
                f"Template syntax error on line {exc.lineno}: {exc.message}", line=exc.lineno
            ) from None

    def render(self, source: str, data: dict[str, Any], limits: Limits = DEFAULT_LIMITS) -> str:
        self.check(source)
        try:
            with deadline(limits.template_timeout_ms / 1000):
                return self._generate(source, data, limits)
        except DeadlineExceeded:
            raise LimitExceeded(
                f"The template took longer than {limits.template_timeout_ms} ms to render."
            ) from None

    def _generate(self, source: str, data: dict[str, Any], limits: Limits) -> str:
        limit = limits.max_html_bytes
        try:
            parts: list[str] = []
            size = 0
            # Streamed so that a loop producing gigabytes stops at the limit, not at OOM.
            for chunk in _environment(limits).from_string(source).generate(data):
                size += len(chunk)
                if size > limit:
                    raise LimitExceeded(
                        f"The rendered HTML is larger than the {limit} bytes allowed."
                    )
                parts.append(chunk)
            return "".join(parts)
        except SecurityError as exc:
            raise TemplateRuntimeError(f"Template tried a forbidden operation: {exc}") from None
        except jinja2.TemplateError as exc:
            line = _template_line(exc)
            where = f" on line {line}" if line else ""
            raise TemplateRuntimeError(f"Template error{where}: {exc}", line=line) from None
        except (TypeError, ValueError, ArithmeticError, LookupError) as exc:
            line = _template_line(exc)
            where = f" on line {line}" if line else ""
            raise TemplateRuntimeError(f"Template error{where}: {exc}", line=line) from None


def _template_line(exc: BaseException) -> int | None:
    # Jinja compiles templates to Python code named "<template>"; its frames carry the
    # template line through the debug info the traceback rewriting leaves in place.
    line = getattr(exc, "lineno", None)
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
