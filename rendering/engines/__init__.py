"""Template engines by name: each checks a source for syntax and renders it with data."""

from __future__ import annotations

from typing import Any, Protocol

from rendering.engines.handlebars import HandlebarsEngine
from rendering.engines.jinja import JinjaEngine
from rendering.engines.raw import RawEngine
from rendering.errors import RenderError
from rendering.limits import Limits


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


def get_engine(name: str) -> TemplateEngine:
    try:
        return _ENGINES[name]
    except KeyError:
        known = ", ".join(ENGINE_NAMES)
        raise RenderError(f"Unknown engine {name!r}; use one of: {known}.") from None
