"""The `django` template engine: Django's own template language on the JSON data.

It lives here, not in rendering/engines, because rendering is a plain package without
Django (an import-linter contract); the name is declared in rendering.engines.PLUGGED and
ReportsConfig.ready registers this implementation under it, so the one registry serves
submit, template save, preview and the workers alike.

What a template can reach: a standalone `Engine` (never the site's TEMPLATES) whose only
loader holds the partials the caller gave (`include` and `extends` by slug; nothing on
disk or of another tenant can be loaded), the libraries Django projects `{% load %}`
(LOADABLE: `static`, `humanize`, `l10n`, `tz`, `i18n`, whose trans/blocktrans pass the
text through), and Django's built-in tags and filters less
those that reveal or reach the host (`debug`, `url`, `csrf_token`, `querystring`) or make
output from nothing (`lorem`), plus ours (format_date, format_number, format_currency,
chart, page_break, toc). Auto-escaping is on. Django already refuses names that start with
an underscore; the data's dicts and lists are copied into types whose only attributes
are `items`, `keys` and `values`, so `{{ rows.pop }}` or `{{ d.clear }}` finds nothing to
call. Widths (`center`, `ljust`, `rjust`, `stringformat`, `floatformat`) are bounded like
Jinja2's, the output is counted while it is written (`PDF_MAX_HTML_BYTES`), and the render
runs in a forked child under the same time and memory ceiling as the other Python engines
(rendering.isolated).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django import template as django_template
from django.contrib.humanize.templatetags import humanize
from django.template import (
    Context,
    Engine,
    Library,
    TemplateDoesNotExist,
    defaultfilters,
    defaulttags,
    loader_tags,
)
from django.template.base import Template, TextNode, VariableNode
from django.templatetags import i18n, l10n, tz
from django.utils.safestring import SafeString, mark_safe

from rendering.engines.base import EngineCall, HtmlEngine
from rendering.engines.excerpt import source_excerpt
from rendering.engines.jinja import MAX_WIDTH, chart_markup
from rendering.engines.jinja_format import FILTERS
from rendering.errors import (
    LimitExceeded,
    TemplateRuntimeError,
    TemplateSyntaxError,
    html_too_large,
)
from rendering.isolated import run_isolated

_REFUSED_TAGS = frozenset({"debug", "url", "csrf_token", "querystring", "lorem"})
_DIGITS = re.compile(r"\d+")


def _too_wide(what: str) -> LimitExceeded:
    return LimitExceeded(f"The template asks for {what} wider than the {MAX_WIDTH} allowed.")


def _bounded_width(name: str) -> Any:
    original = defaultfilters.register.filters[name]

    def bounded(value: Any, arg: Any) -> Any:
        try:
            width = int(arg)
        except (TypeError, ValueError):
            width = 0
        if width > MAX_WIDTH:
            raise _too_wide(f"a {name} field")
        return original(value, arg)

    return bounded


def _stringformat(value: Any, arg: Any) -> Any:
    if any(int(number) > MAX_WIDTH for number in _DIGITS.findall(str(arg))) or "*" in str(arg):
        raise _too_wide("a stringformat field")
    return defaultfilters.stringformat(value, arg)


def _floatformat(value: Any, arg: Any = -1) -> Any:
    if any(int(number) > MAX_WIDTH for number in _DIGITS.findall(str(arg))):
        raise _too_wide("a floatformat precision")
    return defaultfilters.floatformat(value, arg)


def _library() -> Library:
    library = Library()
    for name, tag in defaulttags.register.tags.items():
        if name not in _REFUSED_TAGS:
            library.tags[name] = tag
    library.filters.update(defaultfilters.register.filters)
    for name in ("center", "ljust", "rjust"):
        library.filters[name] = _bounded_width(name)
    library.filters["stringformat"] = _stringformat
    library.filters["floatformat"] = _floatformat
    for name, function in FILTERS.items():
        library.filter(name, function)
    library.filter("chart", chart_markup, is_safe=True)
    library.simple_tag(lambda: mark_safe("<pdf:nextpage></pdf:nextpage>"), name="page_break")
    library.simple_tag(lambda: mark_safe("<pdf:toc></pdf:toc>"), name="toc")
    return library


def _static_library() -> Library:
    """`{% static "logo.png" %}`: the data's `assets` object (name -> data URI) answers,
    else the path itself, which only the bundled assets can resolve (nothing is fetched)."""
    library = Library()

    @library.simple_tag(takes_context=True, name="static")
    def static(context: Context, path: Any) -> str:
        assets = context.get("assets")
        name = str(path)
        # dict.get: the data's _Dict hides its methods from templates.
        found = dict.get(assets, name) if isinstance(assets, dict) else None
        if isinstance(found, str):
            return found
        return name

    library.simple_tag(lambda: "", name="get_static_prefix")
    library.simple_tag(lambda: "", name="get_media_prefix")
    return library


# What `{% load %}` finds: the libraries Django projects' documents use.
LOADABLE: dict[str, Library] = {
    "static": _static_library(),
    "humanize": humanize.register,
    "l10n": l10n.register,
    "tz": tz.register,
    "i18n": i18n.register,
}


class _Engine(Engine):
    # Only our library: none of Django's default builtins are loaded by path.
    default_builtins = []


def _engine(partials: Mapping[str, str] | None = None) -> Engine:
    """`include`, `extends` and `block` find the `partials` given (slug -> source, by an
    in-memory loader) and nothing else: no file, no other tenant's template."""
    # debug=True only makes Django annotate errors with their template line.
    loaders = [("django.template.loaders.locmem.Loader", dict(partials or {}))]
    engine = _Engine(dirs=[], app_dirs=False, loaders=loaders, libraries={}, debug=True)
    engine.template_builtins = [_library(), loader_tags.register]
    engine.template_libraries = dict(LOADABLE)
    return engine


_ENGINE = _engine()


class _Dict(dict[str, Any]):
    """A JSON object in the template: its keys, and items/keys/values for `for` loops."""

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("__") or name in ("items", "keys", "values"):
            return super().__getattribute__(name)
        raise AttributeError(name)

    def __dir__(self) -> list[str]:
        # Django re-raises a failed lookup of a name that dir() lists; these list none.
        return ["items", "keys", "values"]


class _List(list[Any]):
    """A JSON array: its indexes only (no pop, clear, append… for Django to call)."""

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("__"):
            return super().__getattribute__(name)
        raise AttributeError(name)

    def __dir__(self) -> list[str]:
        return []


def _data_only(value: Any) -> Any:
    if isinstance(value, dict):
        return _Dict((key, _data_only(item)) for key, item in value.items())
    if isinstance(value, list):
        return _List(_data_only(item) for item in value)
    return value


def _line(exc: BaseException) -> int | None:
    debug = getattr(exc, "template_debug", None)
    return int(debug["line"]) if debug and debug.get("line") else None


def _syntax_error(source: str, exc: BaseException) -> TemplateSyntaxError:
    reason = str(exc).strip() or type(exc).__name__
    if "is not a registered tag library" in reason:
        name = reason.split("'")[1] if reason.count("'") >= 2 else "?"
        reason = (
            f"{{% load {name} %}}: there is no library {name!r} here; the libraries are "
            f"{', '.join(sorted(LOADABLE))}, beside Django's built-in tags and filters and "
            "ours (format_date, format_number, format_currency, chart, page_break, toc). "
            "A tag library of your own cannot be loaded: compute the value into the data."
        )
    if reason.startswith("Invalid filter: '"):
        name = reason.split("'")[1]
        reason = (
            f"there is no filter {name!r}. Django templates have Django's built-in filters, "
            f"those of the libraries to {{% load %}} ({', '.join(sorted(LOADABLE))}), "
            "and ours (format_date, format_number, format_currency, chart); a template cannot "
            "define a filter of its own: compute the value into the data, or use the jinja2 "
            f"engine, where {{% macro {name}(value) %}}…{{% endmacro %}} defines one."
        )
    line = _line(exc)
    if line is None:
        return TemplateSyntaxError(f"Template syntax error: {reason}")
    excerpt = source_excerpt(source, line)
    return TemplateSyntaxError(
        f"Template syntax error on line {line}: {reason}\n{excerpt}", line=line
    )


class DjangoTemplateEngine(HtmlEngine):
    name = "django"
    label = "Django templates"

    def _compile(self, source: str, engine: Engine = _ENGINE) -> Template:
        try:
            return Template(source, engine=engine)
        except django_template.TemplateSyntaxError as exc:
            raise _syntax_error(source, exc) from None
        except RecursionError:
            raise TemplateSyntaxError("Template syntax error: blocks nest too deeply.") from None

    def check(self, source: str) -> None:
        self._compile(source)

    def render_call(self, call: EngineCall) -> str:
        partials, limits = call.partials, call.limits
        compiled = self._compile(call.source, _engine(partials) if partials else _ENGINE)
        return run_isolated(lambda: _render(compiled, call.data, limits.max_html_bytes), limits)


def _count_output(compiled: Template, limit: int) -> None:
    """Stop the render once the text and values it has written pass `limit`: every byte
    of output comes from a text or a variable node, so their sum is the HTML's size while
    it is being built (a loop writing gigabytes stops at the limit, not at the memory
    ceiling). Done in the forked child, on its own copy of the template."""
    written = 0

    def counted(render: Any) -> Any:
        def count(context: Context) -> str:
            nonlocal written
            out: str = render(context)
            written += len(out)
            if written > limit:
                raise html_too_large(limit)
            return out

        return count

    nodes = compiled.nodelist.get_nodes_by_type
    for node in [*nodes(TextNode), *nodes(VariableNode)]:
        node.render_annotated = counted(node.render_annotated)  # type: ignore[method-assign]


def _render(compiled: Template, data: dict[str, Any], limit: int) -> str:
    _count_output(compiled, limit)
    try:
        html: SafeString = compiled.render(Context(_data_only(data), autoescape=True))
    except (LimitExceeded, TemplateRuntimeError) as exc:
        line = _line(exc)
        where = f" on line {line}" if line else ""
        raise type(exc)(f"{exc.message.rstrip('.')}{where}.", line=line) from None
    except RecursionError:
        raise TemplateRuntimeError("Template error: the data or blocks nest too deeply.") from None
    except TemplateDoesNotExist as exc:
        line = _line(exc)
        where = f" on line {line}" if line else ""
        raise TemplateRuntimeError(
            f"Template error{where}: no template {str(exc)!r} to include.", line=line
        ) from None
    except MemoryError:
        raise  # the isolated child reports the memory ceiling
    except Exception as exc:  # a filter or tag that failed on this data: the author's to fix
        line = _line(exc)
        where = f" on line {line}" if line else ""
        raise TemplateRuntimeError(f"Template error{where}: {exc}", line=line) from None
    if len(html) > limit:
        raise html_too_large(limit)
    return str(html)
