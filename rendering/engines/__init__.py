"""Template engines by name: each checks a source for syntax and renders it with data."""

from __future__ import annotations

from typing import Any, Protocol

from rendering.engines.handlebars import HandlebarsEngine
from rendering.engines.jinja import JinjaEngine
from rendering.engines.raw import RawEngine
from rendering.errors import InvalidInput
from rendering.limits import DEFAULT_LIMITS, Limits


class TemplateEngine(Protocol):
    name: str

    def check(self, source: str) -> None:
        """Raise TemplateSyntaxError (with the line) if the source cannot compile."""

    def render(self, source: str, data: dict[str, Any], limits: Limits = ...) -> str:
        """Return HTML; raise a RenderError subclass on any template problem."""


_ENGINES: dict[str, TemplateEngine] = {
    engine.name: engine for engine in (RawEngine(), HandlebarsEngine(), JinjaEngine())
}
ENGINE_NAMES: tuple[str, ...] = tuple(_ENGINES)


def helpers_check(engine: str, helpers: str, limits: Limits | None = None) -> None:
    """Custom helpers are JavaScript for Handlebars; check they load (syntax, with the line)."""
    if not helpers:
        return
    if engine != HandlebarsEngine.name:
        raise InvalidInput(
            f"helpers are JavaScript for handlebars templates; the {engine} engine does not "
            "take them (Jinja2 templates have format_date, format_number, format_currency…)."
        )
    HandlebarsEngine().check_helpers(helpers, limits or DEFAULT_LIMITS)


def engine_render(
    engine: str, source: str, data: dict[str, Any], limits: Limits, *, helpers: str = ""
) -> str:
    """Render with the named engine; `helpers` only for Handlebars (see helpers_check)."""
    if helpers:
        if engine != HandlebarsEngine.name:
            helpers_check(engine, helpers, limits)
        return HandlebarsEngine().render(source, data, limits, helpers=helpers)
    return get_engine(engine).render(source, data, limits)


def get_engine(name: str) -> TemplateEngine:
    try:
        return _ENGINES[name]
    except KeyError:
        known = ", ".join(ENGINE_NAMES)
        raise InvalidInput(f"Unknown engine {name!r}; use one of: {known}.") from None
