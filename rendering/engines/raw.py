"""The raw engine: the HTML is used exactly as given; data is ignored."""

from __future__ import annotations

from rendering.engines.base import EngineCall, HtmlEngine


class RawEngine(HtmlEngine):
    name = "raw"
    label = "Raw HTML"

    def check(self, source: str) -> None:
        return None

    def render_call(self, call: EngineCall) -> str:
        return call.source
