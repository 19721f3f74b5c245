"""Template engines by name: each checks a source for syntax and renders it with data."""

from __future__ import annotations

from typing import Any, Protocol

from reports.engines.handlebars import HandlebarsEngine
from reports.engines.jinja import JinjaEngine
from reports.engines.raw import RawEngine
from reports.errors import RenderError


class TemplateEngine(Protocol):
    name: str

    def check(self, source: str) -> None:
        """Raise TemplateSyntaxError (with the line) if the source cannot compile."""

    def render(self, source: str, data: dict[str, Any]) -> str:
        """Return HTML; raise a RenderError subclass on any template problem."""


_ENGINES: dict[str, TemplateEngine] = {
    engine.name: engine for engine in (RawEngine(), HandlebarsEngine(), JinjaEngine())
}
ENGINE_NAMES: tuple[str, ...] = tuple(_ENGINES)


def helpers_check(engine: str, helpers: str) -> None:
    """Custom helpers are JavaScript for Handlebars; check they load (syntax, with the line)."""
    if not helpers:
        return
    if engine != HandlebarsEngine.name:
        raise RenderError(
            f"helpers are JavaScript for handlebars templates; the {engine} engine does not "
            "take them (Jinja2 templates have format_date, format_number, format_currency…)."
        )
    HandlebarsEngine().check_helpers(helpers)


def engine_render(engine: str, source: str, data: dict[str, Any], helpers: str = "") -> str:
    """Render with the named engine; `helpers` only for Handlebars (see helpers_check)."""
    if helpers:
        if engine != HandlebarsEngine.name:
            helpers_check(engine, helpers)
        return HandlebarsEngine().render(source, data, helpers)
    return get_engine(engine).render(source, data)


def get_engine(name: str) -> TemplateEngine:
    try:
        return _ENGINES[name]
    except KeyError:
        known = ", ".join(ENGINE_NAMES)
        raise RenderError(f"Unknown engine {name!r}; use one of: {known}.") from None
