"""The raw engine: the HTML is used exactly as given; data is ignored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rendering.limits import DEFAULT_LIMITS, Limits


class RawEngine:
    name = "raw"
    label = "Raw HTML"

    def check(self, source: str) -> None:
        return None

    def render(
        self,
        source: str,
        data: dict[str, Any],
        limits: Limits = DEFAULT_LIMITS,
        *,
        partials: Mapping[str, str] | None = None,
    ) -> str:
        return source
