"""Jinja2 in its immutable sandbox: untrusted authors cannot reach Python objects or mutate data."""

from __future__ import annotations

import json
import operator
import re
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from string import Formatter
from typing import Any
from urllib.parse import quote

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.filters import do_center, do_format, do_indent, do_wordwrap
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import pass_environment
from markupsafe import Markup

from rendering.engines.base import EngineCall, HtmlEngine
from rendering.engines.excerpt import source_excerpt
from rendering.engines.jinja_format import FILTERS
from rendering.errors import (
    LimitExceeded,
    TemplateRuntimeError,
    TemplateSyntaxError,
    html_too_large,
)
from rendering.isolated import run_isolated
from rendering.limits import DEFAULT_LIMITS, Limits, size_text


def chart_markup(spec: Any) -> Markup:
    """The chart placeholder of a Vega-Lite spec (an object or its JSON text): Jinja2's
    `chart()`, Liquid's and Django's `chart` filter."""
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


# Widest field (and longest precision) a format spec, `ljust` and friends or the
# center/indent/wordwrap filters may ask for: report columns need tens, not billions.
MAX_WIDTH = 1000
_WIDENING_METHODS = frozenset({"ljust", "rjust", "center", "zfill", "expandtabs"})
_DIGITS = re.compile(r"\d+")


def _too_wide(what: str) -> LimitExceeded:
    return LimitExceeded(f"The template asks for {what} wider than the {MAX_WIDTH} allowed.")


def _check_width(value: Any, what: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and value > MAX_WIDTH:
        raise _too_wide(what)


def _check_spec(spec: str) -> None:
    """A `str.format` spec: every number in it (width, precision) is bounded."""
    if "{" in spec:
        raise TemplateRuntimeError("Nested fields in a format spec are not allowed in templates.")
    if any(int(number) > MAX_WIDTH for number in _DIGITS.findall(spec)):
        raise _too_wide("a format field")


def _check_str_format(template: str) -> None:
    for _literal, field, spec, _conversion in Formatter().parse(template):
        if field is not None and spec:
            _check_spec(spec)


def _check_percent_format(template: str) -> None:
    """A printf-style `%` template, parsed as CPython does (mapping keys may nest
    parentheses): widths and precisions are bounded, `*` (width from an argument) refused."""
    index, end = 0, len(template)
    while (index := template.find("%", index)) != -1:
        index += 1
        if index < end and template[index] == "(":
            depth = 0
            while index < end:
                depth += {"(": 1, ")": -1}.get(template[index], 0)
                index += 1
                if depth == 0:
                    break
        while index < end and template[index] in "-+ #0":
            index += 1
        for _part in ("width", "precision"):
            if index < end and template[index] == "*":
                raise TemplateRuntimeError("A `*` width in a % format is not allowed in templates.")
            start = index
            while index < end and template[index].isdigit():
                index += 1
            if index > start and int(template[start:index]) > MAX_WIDTH:
                raise _too_wide("a % format field")
            if index < end and template[index] == ".":
                index += 1
            else:
                break
        index += 1  # the conversion character ("%%" included)


def _center(value: Any, width: int = 80) -> str:
    _check_width(width, "a centered field")
    return do_center(value, width)


def _indent(value: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    if isinstance(width, str) and len(width) > MAX_WIDTH:
        raise _too_wide("an indent")
    _check_width(width, "an indent")
    return do_indent(value, width, first, blank)


def _format(value: Any, *args: Any, **kwargs: Any) -> str:
    _check_percent_format(str(value))
    return do_format(value, *args, **kwargs)


@pass_environment
def _wordwrap(environment: Any, value: str, width: int = 79, *args: Any, **kwargs: Any) -> str:
    _check_width(width, "a wrapped line")
    wrapstring = kwargs.get("wrapstring", args[1] if len(args) > 1 else None)
    if wrapstring is not None and len(str(wrapstring)) > MAX_WIDTH:
        raise _too_wide("a wrap string")
    return do_wordwrap(environment, value, width, *args, **kwargs)


class _Environment(ImmutableSandboxedEnvironment):
    """Caps what one operation can allocate: `"x" * 10**8`, `"%2000000000s" % x`,
    `"{:>2000000000}".format(x)` and `x.ljust(2000000000)` are refused before they are
    built. Anything that still grows too large meets the render's memory ceiling."""

    intercepted_binops = frozenset({"*", "**", "%"})

    def __init__(self, *, max_bytes: int, **options: Any) -> None:
        super().__init__(**options)
        self.max_bytes = max_bytes

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        limit = self.max_bytes
        if operator_name == "%":
            if isinstance(left, str):
                _check_percent_format(left)
            return operator.mod(left, right)
        if operator_name == "*":
            sized = left if isinstance(left, str | list | tuple) else right
            count = right if sized is left else left
            if isinstance(sized, str | list | tuple) and isinstance(count, int):
                if len(sized) * count > limit:
                    raise LimitExceeded(
                        f"The template builds a value larger than the {size_text(limit)} allowed."
                    )
            return operator.mul(left, right)
        if isinstance(right, int | float) and isinstance(left, int | float) and abs(right) > 1000:
            raise LimitExceeded("The template raises a number to too large a power.")
        return operator.pow(left, right)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        template = value.__self__

        def bounded(*args: Any, **kwargs: Any) -> str:
            _check_str_format(template)
            return wrapped(*args, **kwargs)

        return bounded

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if (
            isinstance(__obj, types.BuiltinMethodType)
            and isinstance(__obj.__self__, str)
            and __obj.__name__ in _WIDENING_METHODS
        ):
            for argument in (*args, *kwargs.values()):
                _check_width(argument, f"a {__obj.__name__}() field")
        return super().call(__context, __obj, *args, **kwargs)


def jinja_environment(
    limits: Limits, partials: Mapping[str, str] | None = None
) -> ImmutableSandboxedEnvironment:
    """The sandbox every Jinja render runs in (the jinja2 engine, docx templates): a fresh
    one per render, so no cache or global is shared between tenants."""
    loader = jinja2.DictLoader(dict(partials)) if partials else None
    env = _Environment(
        max_bytes=limits.max_html_bytes, autoescape=True, loader=loader, cache_size=0
    )
    env.globals.update(chart=chart_markup, page_break=_page_break, toc=_toc)
    env.filters.update(FILTERS)
    env.filters.update(center=_center, indent=_indent, format=_format, wordwrap=_wordwrap)
    return env


class JinjaEngine(HtmlEngine):
    name = "jinja2"
    label = "Jinja2 (sandboxed)"

    def check(self, source: str) -> None:
        try:
            # Compiled, not only parsed: an unknown filter or test is found here, at save.
            # Compiling makes Python source from the template and runs none of it.
            jinja_environment(DEFAULT_LIMITS).compile(source)
        except jinja2.TemplateSyntaxError as exc:
            # Jinja gives the line, not the column: the caret marks the line's first tag.
            excerpt = source_excerpt(source, exc.lineno)
            reason = _missing_filter_hint(str(exc.message))
            raise TemplateSyntaxError(
                f"Template syntax error on line {exc.lineno}: {reason}\n{excerpt}",
                line=exc.lineno,
            ) from None

    def render_call(self, call: EngineCall) -> str:
        self.check(call.source)
        # Compiled here, run in the child.
        template = jinja_environment(call.limits, call.partials).from_string(call.source)
        data, limit = call.data, call.limits.max_html_bytes
        return run_isolated(lambda: self._generate(template, data, limit), call.limits)

    def _generate(self, template: jinja2.Template, data: dict[str, Any], limit: int) -> str:
        with jinja_errors():
            parts: list[str] = []
            size = 0
            # Streamed so that a loop producing gigabytes stops at the limit, not at OOM.
            for chunk in template.generate(data):
                size += len(chunk)
                if size > limit:
                    raise html_too_large(limit)
                parts.append(chunk)
            return "".join(parts)


@contextmanager
def jinja_errors(*, lines: bool = True) -> Iterator[None]:
    """Jinja's and Python's errors in a running template as template errors, with the
    template's line (`lines=False` where the template is no text the author wrote: a Word
    document's XML)."""
    try:
        yield
    except SecurityError as exc:
        raise TemplateRuntimeError(f"Template tried a forbidden operation: {exc}") from None
    except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError, LookupError) as exc:
        line = _template_line(exc) if lines else None
        where = f" on line {line}" if line else ""
        if isinstance(exc, jinja2.TemplateNotFound):
            message = f"Template error{where}: no template {exc.name!r} to include."
        else:
            message = f"Template error{where}: {exc}"
        raise TemplateRuntimeError(message, line=line) from None


_NO_FILTER = re.compile(r"^No (filter|test) named '(\w+)'")


def _missing_filter_hint(message: str) -> str:
    """Jinja2's "No filter named 'x'." with what there is and how to make one."""
    found = _NO_FILTER.match(message)
    if found is None:
        return message
    kind, name = found.groups()
    return (
        f"there is no {kind} {name!r}. Jinja2 templates have Jinja2's built-in {kind}s and "
        "ours (format_date, format_datetime, format_number, format_currency, chart); one of "
        f"your own is a macro: {{% macro {name}(value) %}}…{{% endmacro %}}, called as "
        f"{{{{ {name}(value) }}}}."
    )


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
