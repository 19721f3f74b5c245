"""The one render signature of the HTML engines (`TemplateEngine.render`), as one call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rendering.engines.settings import DEFAULT_ENGINE_SETTINGS, EngineSettings
from rendering.limits import DEFAULT_LIMITS, Limits


@dataclass(frozen=True)
class EngineCall:
    """One render: the template's source and data, the limits, the engine settings
    (options.engine; only Liquid reads them) and the templates it may include."""

    source: str
    data: dict[str, Any]
    limits: Limits = DEFAULT_LIMITS
    settings: EngineSettings = DEFAULT_ENGINE_SETTINGS
    partials: Mapping[str, str] | None = None


class HtmlEngine:
    """An engine that makes HTML: `render` takes the registry's arguments once, here, and
    hands them to the engine's `render_call` as one EngineCall."""

    def render(
        self,
        source: str,
        data: dict[str, Any],
        limits: Limits = DEFAULT_LIMITS,
        settings: EngineSettings = DEFAULT_ENGINE_SETTINGS,
        *,
        partials: Mapping[str, str] | None = None,
    ) -> str:
        return self.render_call(EngineCall(source, data, limits, settings, partials))

    def render_call(self, call: EngineCall) -> str:
        raise NotImplementedError
