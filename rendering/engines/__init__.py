"""Template engines by name: each checks a source for syntax and renders it with data.

The one registry of engine names. Every engine but `django` lives in this package; Django's
template engine cannot (rendering is a plain package, without Django), so its name is
declared here and its implementation is plugged in by the Django layer at start-up
(`register_engine`, from workspaces' AppConfig.ready) — the names, their order and the
model's choices stay defined once, here.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from rendering.engines.base import EngineCall, HtmlEngine
from rendering.engines.docx import DocxEngine, docx_file, docx_schema, docx_source
from rendering.engines.handlebars import EjsEngine, HandlebarsEngine, MustacheEngine
from rendering.engines.jinja import JinjaEngine
from rendering.engines.partials import partials_check
from rendering.engines.raw import RawEngine
from rendering.engines.settings import DEFAULT_ENGINE_SETTINGS, EngineSettings
from rendering.errors import InvalidInput, RenderError
from rendering.forms import PdfFormEngine, form_fields, form_pdf, form_schema, form_source
from rendering.limits import DEFAULT_LIMITS, Limits
from rendering.office import OfficeEngine

if TYPE_CHECKING:
    from rendering.engines.liquid import LiquidEngine


class TemplateEngine(Protocol):
    name: str
    label: str

    def check(self, source: str) -> None:
        """Raise TemplateSyntaxError (with the line) if the source cannot compile."""

    def render(
        self,
        source: str,
        data: dict[str, Any],
        limits: Limits = ...,
        *,
        partials: Mapping[str, str] | None = ...,
    ) -> str:
        """Return HTML; raise a RenderError subclass on any template problem. `partials`:
        the templates an include may find, by slug (rendering.engines.partials)."""


class _Liquid(HtmlEngine):
    """The Liquid engine, its module imported on first use: python-liquid costs every
    process start ~35 ms, and most processes never check or render a Liquid template. A
    worker imports it before its pool forks (rendering.preload)."""

    name = "liquid"
    label = "Liquid"

    def check(self, source: str) -> None:
        _liquid().check(source)

    def render_call(self, call: EngineCall) -> str:
        return _liquid().render_call(call)


def _liquid() -> LiquidEngine:
    from rendering.engines.liquid import LiquidEngine

    return LiquidEngine()


# Engines implemented outside this package: name -> label (see the module's docstring).
PLUGGED: dict[str, str] = {"django": "Django templates"}

_ENGINES: dict[str, TemplateEngine] = {
    engine.name: engine
    for engine in (
        RawEngine(),
        HandlebarsEngine(),
        JinjaEngine(),
        _Liquid(),
        MustacheEngine(),
        EjsEngine(),
        PdfFormEngine(),
        DocxEngine(),
        OfficeEngine(),
    )
}
# Engines a job runs but no template or submit names: a conversion's files, queued by
# POST /api/v1/convert (jobs.conversions), not written by anyone as a template.
JOB_ONLY_ENGINES: tuple[str, ...] = (OfficeEngine.name,)
ENGINE_NAMES: tuple[str, ...] = (
    *(name for name in _ENGINES if name not in JOB_ONLY_ENGINES),
    *PLUGGED,
)
# The engines that take custom helpers (JavaScript functions; see helpers_check).
ENGINES_WITH_HELPERS: tuple[str, ...] = (HandlebarsEngine.name,)
# The API's answer to an unknown engine (DRF fills in {input}): it names the supported ones.
UNKNOWN_ENGINE_MESSAGE = "Unknown engine {input!r}; use one of: " + ", ".join(ENGINE_NAMES) + "."


# Engines whose template is a file, not text: its source is the file as a data URI.
_FILE_SOURCES = {PdfFormEngine.name: form_source, DocxEngine.name: docx_source}
FILE_ENGINES: tuple[str, ...] = tuple(_FILE_SOURCES)


def template_file_source(engine: str | None, encoded: str) -> str:
    """A `template_file` (the file in base64, as the API takes it) as the engine's source."""
    if engine not in _FILE_SOURCES:
        raise InvalidInput(
            f"only {' and '.join(FILE_ENGINES)} templates are files; send engine "
            f"{' or '.join(FILE_ENGINES)} with it (or html for a {engine} template)."
        )
    try:
        content = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput("the base64 does not decode.") from None
    return _FILE_SOURCES[engine](content)


def template_file_defaults(engine: str, source: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON Schema and sample data a file template's own contents give: a PDF form's
    fields, a Word document's tags. Empty for the other engines."""
    if engine == PdfFormEngine.name:
        return form_schema(form_fields(form_pdf(source)))
    if engine == DocxEngine.name:
        return docx_schema(docx_file(source))
    return {}, {}


def engine_choices() -> list[tuple[str, str]]:
    """(name, label) of every engine: the template and job models' choices (a callable,
    so a new engine needs no migration)."""
    labels = {name: engine.label for name, engine in _ENGINES.items()}
    names = (*ENGINE_NAMES, *JOB_ONLY_ENGINES)
    return [(name, labels.get(name) or PLUGGED[name]) for name in names]


def register_engine(engine: TemplateEngine) -> None:
    """Plug in an engine declared in PLUGGED (its implementation needs the app layer)."""
    if engine.name not in PLUGGED:
        raise ValueError(f"{engine.name!r} is not a declared plugged engine")
    _ENGINES[engine.name] = engine


def helpers_check(engine: str, helpers: str, limits: Limits | None = None) -> None:
    """Custom helpers are JavaScript for Handlebars; check they load (syntax, with the line)."""
    if not helpers:
        return
    if engine not in ENGINES_WITH_HELPERS:
        raise InvalidInput(
            f"helpers are JavaScript for handlebars templates; the {engine} engine does not "
            "take them (Jinja2 templates have format_date, format_number, format_currency…)."
        )
    HandlebarsEngine().check_helpers(helpers, limits or DEFAULT_LIMITS)


def engine_render(
    engine: str,
    source: str,
    data: dict[str, Any],
    limits: Limits,
    *,
    helpers: str = "",
    settings: EngineSettings | None = None,
    partials: Mapping[str, str] | None = None,
) -> str:
    """Render with the named engine; `helpers` only for Handlebars (see helpers_check),
    `settings` (options.engine) only read by Liquid, `partials` (slug -> source: the
    templates it may include, rendering.engines.partials) checked for missing slugs,
    cycles and depth first."""
    if partials:
        partials_check(engine, source, partials)
    if helpers:
        if engine != HandlebarsEngine.name:
            helpers_check(engine, helpers, limits)
        return HandlebarsEngine().render(source, data, limits, helpers=helpers, partials=partials)
    if engine == _Liquid.name:
        return _Liquid().render(
            source, data, limits, settings=settings or DEFAULT_ENGINE_SETTINGS, partials=partials
        )
    if partials:
        return get_engine(engine).render(source, data, limits, partials=partials)
    return get_engine(engine).render(source, data, limits)


def get_engine(name: str) -> TemplateEngine:
    try:
        return _ENGINES[name]
    except KeyError:
        if name in PLUGGED:
            # Only a process that never set up the Django apps gets here.
            raise RenderError(f"The {name} engine is not available in this process.") from None
        raise InvalidInput(UNKNOWN_ENGINE_MESSAGE.format(input=name)) from None
