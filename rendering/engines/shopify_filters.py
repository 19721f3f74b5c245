"""Shopify's own Liquid filters that order, invoice and packing-slip templates use: the
money family (integer cents, the shop's money_format), images and assets, handleize,
pluralize, weight_with_unit and Order Printer's payment_method, and `date` with Shopify's
named formats (`date: format: 'abbreviated_date'`) beside Liquid's strftime formats.

Image and asset filters only make strings: nothing is fetched here. A data: URI or a URL
is passed on for the renderer, whose resource policy decides (remote hosts only when
the deployment allows them), and `asset_url` resolves a name through the data's `assets`
object (name -> data URI) or else to the name itself, which only the bundled assets can
answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from liquid.builtin.filters.misc import date as liquid_date
from liquid.filter import with_context
from liquid.undefined import is_undefined
from markupsafe import Markup, escape

from rendering.engines.settings import (
    DEFAULT_ENGINE_SETTINGS,
    DEFAULT_MONEY_FORMAT,
    EngineSettings,
)
from rendering.errors import TemplateRuntimeError

_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
# Shopify's money_format placeholders: (thousands separator, decimal mark, decimals).
_AMOUNT_STYLES: dict[str, tuple[str, str, int]] = {
    "amount": (",", ".", 2),
    "amount_no_decimals": (",", ".", 0),
    "amount_with_comma_separator": (".", ",", 2),
    "amount_no_decimals_with_comma_separator": (".", ",", 0),
    "amount_with_apostrophe_separator": ("'", ".", 2),
    "amount_no_decimals_with_space_separator": (" ", ",", 0),
    "amount_with_space_separator": (" ", ",", 2),
    "amount_with_period_and_space_separator": (" ", ".", 2),
}


def _settings(context: Any) -> EngineSettings:
    return getattr(context.env, "engine_settings", DEFAULT_ENGINE_SETTINGS)


def _shop(context: Any, key: str) -> str:
    """shop.<key> from the data (Shopify passes the shop), or ""."""
    shop = context.resolve("shop", default=None)
    value = shop.get(key) if isinstance(shop, Mapping) else None
    return str(value) if isinstance(value, str | int) and value != "" else ""


def _cents(value: Any, name: str) -> Decimal | None:
    if value is None or is_undefined(value) or value == "":
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise TemplateRuntimeError(
            f"{name}: {str(value)[:40]!r} is not an amount in cents (Shopify's money filters "
            "take integer cents: 1999 is 19.99)."
        ) from None


def _amount(cents: Decimal, style: str, *, trim_zeros: bool = False) -> str:
    thousands, mark, decimals = _AMOUNT_STYLES.get(style, _AMOUNT_STYLES["amount"])
    units = (cents / 100).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    if trim_zeros and units == units.to_integral_value():
        decimals = 0
    whole, _, fraction = f"{abs(units):.{decimals}f}".partition(".")
    groups = f"{int(whole):,}".replace(",", thousands)
    sign = "-" if units < 0 else ""
    return sign + groups + (mark + fraction if decimals else "")


def _format(template: str, cents: Decimal, currency: str, *, trim_zeros: bool = False) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in ("currency", "currency_code"):
            return currency
        return _amount(cents, name, trim_zeros=trim_zeros)

    return _PLACEHOLDER.sub(fill, template)


def _money_format(context: Any) -> str:
    return _shop(context, "money_format") or _settings(context).money_format or DEFAULT_MONEY_FORMAT


def _currency(context: Any) -> str:
    return _shop(context, "currency") or _settings(context).currency or "USD"


@with_context
def money(value: Any, *, context: Any) -> str:
    cents = _cents(value, "money")
    if cents is None:
        return ""
    return _format(_money_format(context), cents, _currency(context))


@with_context
def money_with_currency(value: Any, *, context: Any) -> str:
    cents = _cents(value, "money_with_currency")
    if cents is None:
        return ""
    template = (
        _shop(context, "money_with_currency_format")
        or _settings(context).money_with_currency_format
    )
    if not template:
        template = _money_format(context) + " {{currency}}"
    return _format(template, cents, _currency(context))


@with_context
def money_without_currency(value: Any, *, context: Any) -> str:
    cents = _cents(value, "money_without_currency")
    if cents is None:
        return ""
    found = _PLACEHOLDER.search(_money_format(context))
    return _amount(cents, found.group(1) if found else "amount")


@with_context
def money_without_trailing_zeros(value: Any, *, context: Any) -> str:
    cents = _cents(value, "money_without_trailing_zeros")
    if cents is None:
        return ""
    return _format(_money_format(context), cents, _currency(context), trim_zeros=True)


def _image_source(value: Any) -> str:
    """A Shopify image object ({src}, {url}), a product or line item with an image, or a
    URL string."""
    if value is None or is_undefined(value):
        return ""
    if isinstance(value, Mapping):
        for key in ("src", "url", "image", "featured_image"):
            if value.get(key):
                return _image_source(value[key])
        return ""
    return str(value)


def img_url(value: Any, *_size: Any, **_options: Any) -> str:
    """The image's own URL or data URI; sizes and crops are the renderer's CSS here."""
    return _image_source(value)


def img_tag(value: Any, alt: Any = "", css_class: Any = "", *_rest: Any) -> str:
    src = _image_source(value)
    if not src:
        return ""
    attrs = f'src="{escape(src)}" alt="{escape("" if is_undefined(alt) else alt)}"'
    if css_class and not is_undefined(css_class):
        attrs += f' class="{escape(css_class)}"'
    return Markup(f"<img {attrs}>")  # noqa: S704 - every attribute escaped above


@with_context
def asset_url(value: Any, *, context: Any) -> str:
    name = "" if value is None or is_undefined(value) else str(value)
    assets = context.resolve("assets", default=None)
    if isinstance(assets, Mapping) and isinstance(assets.get(name), str):
        return str(assets[name])
    return name


_NOT_HANDLE = re.compile(r"[^a-z0-9]+")


def handleize(value: Any) -> str:
    """Shopify's handle: lower case, runs of anything but letters and digits as one dash."""
    text = "" if value is None or is_undefined(value) else str(value)
    return _NOT_HANDLE.sub("-", text.lower()).strip("-")


def pluralize(value: Any, singular: Any = "", plural: Any = "") -> str:
    try:
        one = Decimal(str(value)) == 1
    except InvalidOperation:
        one = False
    return str(singular if one else plural)


def payment_method(value: Any) -> str:
    """Order Printer's label for a gateway handle: shopify_payments -> Shopify Payments."""
    text = "" if value is None or is_undefined(value) else str(value)
    return " ".join(word.capitalize() for word in re.split(r"[_\s-]+", text) if word)


_WEIGHT_UNITS = {
    "g": Decimal(1),
    "kg": Decimal(1000),
    "lb": Decimal("453.59237"),
    "oz": Decimal("28.349523125"),
}


def weight_with_unit(value: Any, unit: Any = "kg") -> str:
    """Grams (Shopify's weights) in the unit: 1200 | weight_with_unit -> 1.2 kg."""
    grams = _cents(value, "weight_with_unit")
    if grams is None:
        return ""
    name = str(unit) if str(unit) in _WEIGHT_UNITS else "kg"
    amount = (grams / _WEIGHT_UNITS[name]).quantize(Decimal("0.01")).normalize()
    return f"{amount:f} {name}"


# Shopify's locale-aware formats (an English store's), by the names its `date` filter takes;
# `short` and `long` are deprecated there and kept for the templates that still use them.
DATE_FORMATS: dict[str, str] = {
    "default": "%A, %B %d, %Y at %-l:%M %P %z",
    "abbreviated_date": "%b %d, %Y",
    "basic": "%m/%d/%Y",
    "date": "%B %d, %Y",
    "date_at_time": "%B %d, %Y at %-l:%M %P",
    "on_date": "on %b %d, %Y",
    "short": "%d %b %H:%M",
    "long": "%B %d, %Y %H:%M",
}


@with_context
def date(value: Any, fmt: Any = None, *, context: Any, format: Any = None) -> str:
    """Liquid's date (strftime formats, "now" and "today"), plus Shopify's named formats
    given as `format: 'name'`; with no format at all, Shopify's `default`."""
    if format is not None and not is_undefined(format):
        name = str(format)
        if name not in DATE_FORMATS:
            raise TemplateRuntimeError(
                f"date: unknown format {name[:40]!r}; Shopify's named formats are "
                f"{', '.join(DATE_FORMATS)}, or give a strftime format: date: '%B %d, %Y'."
            )
        fmt = DATE_FORMATS[name]
    elif fmt is None:
        fmt = DATE_FORMATS["default"]
    return str(liquid_date(value, fmt, environment=context.env))


SHOPIFY_FILTERS: dict[str, Callable[..., Any]] = {
    "date": date,
    "money": money,
    "money_with_currency": money_with_currency,
    "money_without_currency": money_without_currency,
    "money_without_trailing_zeros": money_without_trailing_zeros,
    "img_url": img_url,
    "image_url": img_url,
    "product_img_url": img_url,
    "img_tag": img_tag,
    "image_tag": img_tag,
    "asset_url": asset_url,
    "asset_img_url": asset_url,
    "handle": handleize,
    "handleize": handleize,
    "pluralize": pluralize,
    "weight_with_unit": weight_with_unit,
    "payment_method": payment_method,
}
