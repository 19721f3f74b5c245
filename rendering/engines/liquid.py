"""Liquid (Shopify's template language) by python-liquid: PDFMonkey and Shopify authors'
templates render unchanged.

python-liquid never evaluates Python: a path reads keys and indexes of the JSON data only
(no attribute access), so `{{ x.__class__ }}` is just an undefined key. As in Shopify,
LiquidJS and python-liquid's own defaults, an undefined name renders empty (and equals
`blank`) and output is not escaped; a template's options.engine can ask for strict
undefined names (an error with the line; `| default:` still works) and auto-escaping.
Shopify's filters are there (rendering.engines.shopify_filters), and `include`/`render`
find only the partials given by slug (rendering.engines.partials). Our `Limits` map onto
python-liquid's own resource limits (output size, loop iterations, the size of assigned
values, nesting depth), and the render runs in a forked child under the same time and
memory ceiling as Jinja2 (rendering.isolated).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import liquid
from liquid.builtin.expressions import logical
from liquid.builtin.expressions.primitive import Blank
from liquid.exceptions import (
    LiquidError,
    LiquidSyntaxError,
    ResourceLimitError,
    TemplateNotFoundError,
    UndefinedError,
    UnknownFilterError,
)
from markupsafe import Markup

from rendering.engines.base import EngineCall, HtmlEngine
from rendering.engines.excerpt import source_excerpt
from rendering.engines.jinja import chart_markup
from rendering.engines.jinja_format import FILTERS
from rendering.engines.settings import DEFAULT_ENGINE_SETTINGS, EngineSettings
from rendering.engines.shopify_filters import SHOPIFY_FILTERS
from rendering.errors import (
    LimitExceeded,
    TemplateRuntimeError,
    TemplateSyntaxError,
    html_too_large,
)
from rendering.isolated import run_isolated
from rendering.limits import DEFAULT_LIMITS, Limits

# Loop iterations in one render (all loops together): a report's tables have thousands of
# rows, not millions; a loop nested to a billion turns stops here, at once, not at the clock.
MAX_LOOP_ITERATIONS = 1_000_000


_python_liquid_eq = logical._eq


def _shopify_eq(left: object, right: object) -> bool:
    """`x == blank` holds for nil and an undefined name too, as in Shopify and LiquidJS
    (Shopify's own packing slip tests `billing_address != blank`); python-liquid compares
    them unequal. Everything else is python-liquid's own comparison."""
    if isinstance(right, Blank):
        left, right = right, left
    if isinstance(left, Blank) and (right is None or liquid.is_undefined(right)):
        return True
    return bool(_python_liquid_eq(left, right))


# python-liquid's `==` and `!=` call this module function (`{% when %}` keeps its own).
logical._eq = _shopify_eq


class _NoTemplates(liquid.DictLoader):
    """`include` and `render` find nothing: no file system, no other template."""

    def __init__(self) -> None:
        super().__init__({})


def _environment(
    limits: Limits,
    settings: EngineSettings = DEFAULT_ENGINE_SETTINGS,
    partials: Mapping[str, str] | None = None,
) -> liquid.Environment:
    class Bounded(liquid.Environment):
        # python-liquid reads its limits from the class; a class per render keeps each
        # render's own (they differ when the settings do).
        output_stream_limit: ClassVar[int | None] = limits.max_html_bytes
        local_namespace_limit: ClassVar[int | None] = limits.max_html_bytes
        loop_iteration_limit: ClassVar[int | None] = MAX_LOOP_ITERATIONS
        context_depth_limit: ClassVar[int] = 30
        block_nesting_limit: ClassVar[int] = min(limits.max_nesting_depth, 100)
        # Read by the money filters (rendering.engines.shopify_filters).
        engine_settings: ClassVar[EngineSettings] = settings

    env = Bounded(
        loader=liquid.DictLoader(dict(partials)) if partials else _NoTemplates(),
        undefined=liquid.StrictDefaultUndefined if settings.strict_undefined else liquid.Undefined,
        autoescape=settings.autoescape,
        globals={
            "page_break": Markup("<pdf:nextpage></pdf:nextpage>"),
            "toc": Markup("<pdf:toc></pdf:toc>"),
        },
    )
    filters: dict[str, Callable[..., Any]] = {**SHOPIFY_FILTERS, **FILTERS, "chart": chart_markup}
    env.filters.update(filters)
    return env


def _line_column(exc: LiquidError) -> tuple[int | None, int | None]:
    context = exc.context()
    if context is None:
        return None, None
    return context[0], context[1]


def _reason(exc: LiquidError) -> str:
    return str(exc.message or type(exc).__name__)


def _first_failing_line(env: liquid.Environment, source: str, reason: str) -> int | None:
    """python-liquid gives no position for errors found at the end of the input (an
    unclosed `for`, `{{ a | }}`): the line is the first whose prefix of the source fails
    the same way (for an unclosed block, the line that opened it)."""
    lines = source.splitlines()
    low, high = 1, len(lines)
    while low < high:
        middle = (low + high) // 2
        try:
            env.parse("\n".join(lines[:middle]))
            failed = False
        except LiquidError as exc:
            failed = _reason(exc) == reason
        if failed:
            high = middle
        else:
            low = middle + 1
    return low if lines else None


class LiquidEngine(HtmlEngine):
    name = "liquid"
    label = "Liquid"

    def check(self, source: str) -> None:
        env = _environment(DEFAULT_LIMITS)
        try:
            env.parse(source)
        except LiquidError as exc:
            line, column = _line_column(exc)
            if line is None:
                line = _first_failing_line(env, source, _reason(exc))
            if line is None:
                raise TemplateSyntaxError(f"Template syntax error: {_reason(exc)}") from None
            excerpt = source_excerpt(source, line, column)
            raise TemplateSyntaxError(
                f"Template syntax error on line {line}: {_reason(exc)}\n{excerpt}", line=line
            ) from None

    def render_call(self, call: EngineCall) -> str:
        self.check(call.source)
        limits = call.limits
        template = _environment(limits, call.settings, call.partials).from_string(call.source)
        return run_isolated(lambda: _render(template, call.data, limits.max_html_bytes), limits)


def _render(template: liquid.BoundTemplate, data: dict[str, Any], limit: int) -> str:
    try:
        return template.render(**data)
    except ResourceLimitError as exc:
        line, _ = _line_column(exc)
        where = f" on line {line}" if line else ""
        if "output stream" in _reason(exc).lower():
            raise html_too_large(limit) from None
        raise LimitExceeded(f"Template limit{where}: {_reason(exc)}", line=line) from None
    except TemplateNotFoundError as exc:
        line, _ = _line_column(exc)
        where = f" on line {line}" if line else ""
        raise TemplateRuntimeError(
            f"Template error{where}: no template to include ({_reason(exc)}); include and "
            "render find this workspace's templates by slug.",
            line=line,
        ) from None
    except UnknownFilterError as exc:
        line, _ = _line_column(exc)
        where = f" on line {line}" if line else ""
        name = _reason(exc).split("'")[1] if _reason(exc).count("'") >= 2 else "?"
        raise TemplateRuntimeError(
            f"Template error{where}: there is no filter {name!r}. Liquid templates here have "
            "Liquid's standard filters, Shopify's (money, img_url, handleize, pluralize…) and "
            "ours (format_date, format_number, format_currency, chart); a filter of your "
            f"own is an assign or capture: {{% capture {name} %}}…{{% endcapture %}}, or "
            "compute the value into the data.",
            line=line,
        ) from None
    except (UndefinedError, LiquidSyntaxError, LiquidError) as exc:
        line, _ = _line_column(exc)
        where = f" on line {line}" if line else ""
        raise TemplateRuntimeError(f"Template error{where}: {_reason(exc)}", line=line) from None
    except (TypeError, ValueError, ArithmeticError, LookupError, RecursionError) as exc:
        raise TemplateRuntimeError(f"Template error: {exc}") from None
