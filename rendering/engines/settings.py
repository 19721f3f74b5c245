"""A template's engine settings (options.engine): Liquid's strictness and escaping, and the
shop's money formats that Shopify's money filters read."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from rendering.errors import InvalidInput
from rendering.option_objects import option_object_check

# Shopify's defaults for a shop in US dollars (Settings > Store currency > money format).
DEFAULT_MONEY_FORMAT = "${{amount}}"
DEFAULT_MONEY_WITH_CURRENCY_FORMAT = "${{amount}} {{currency}}"
_MAX_FORMAT = 100


@dataclass(frozen=True)
class EngineSettings:
    # Liquid: an undefined name is an error (with its line) instead of rendering empty.
    strict_undefined: bool = False
    # Liquid: output is HTML-escaped unless marked `| safe` (Shopify and LiquidJS do not).
    autoescape: bool = False
    # Shopify's money filters, when the data has no shop.money_format of its own.
    money_format: str = ""
    money_with_currency_format: str = ""
    currency: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value}


DEFAULT_ENGINE_SETTINGS = EngineSettings()
_BOOLS = ("strict_undefined", "autoescape")


def parse_engine_settings(raw: Any) -> EngineSettings | None:
    """options.engine, checked; None when absent."""
    if raw is None:
        return None
    known = {field.name for field in fields(EngineSettings)}
    option_object_check(raw, path="options.engine", known=known, what="options.engine setting(s)")
    for name in _BOOLS:
        if name in raw and not isinstance(raw[name], bool):
            raise InvalidInput(f"options.engine.{name} must be true or false.")
    for name in known - set(_BOOLS):
        value = raw.get(name, "")
        if not isinstance(value, str) or len(value) > _MAX_FORMAT:
            raise InvalidInput(
                f"options.engine.{name} must be a string of at most {_MAX_FORMAT} characters."
            )
    return EngineSettings(**raw)
