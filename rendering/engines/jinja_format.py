"""Locale-aware formatting filters for Jinja2 templates, by Babel: format_date,
format_datetime, format_number, format_currency (`{{ total|format_currency("EUR", "de-DE") }}`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from babel import Locale, UnknownLocaleError, dates, numbers

from rendering.errors import TemplateRuntimeError

DEFAULT_LOCALE = "en_US"


def _locale(name: str, filter_name: str) -> Locale:
    try:
        return Locale.parse(str(name).replace("-", "_"))
    except (UnknownLocaleError, ValueError, TypeError):
        raise TemplateRuntimeError(f"{filter_name}: unknown locale {name!r}.") from None


def _datetime(value: Any, filter_name: str) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, tz=UTC)
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise TemplateRuntimeError(
            f"{filter_name}: {str(value)[:40]!r} is not an ISO 8601 date (2026-11-30)."
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _number(value: Any, filter_name: str) -> Decimal:
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise TemplateRuntimeError(f"{filter_name}: {str(value)[:40]!r} is not a number.") from None


def format_date(value: Any, format: str = "medium", locale: str = DEFAULT_LOCALE) -> str:
    """`format` is short, medium, long, full or a CLDR pattern ("d MMM y")."""
    moment = _datetime(value, "format_date")
    return dates.format_date(moment.date(), format=format, locale=_locale(locale, "format_date"))


def format_datetime(
    value: Any,
    format: str = "medium",
    locale: str = DEFAULT_LOCALE,
    tz: str = "UTC",
) -> str:
    try:
        zone = dates.get_timezone(tz)
    except LookupError:
        raise TemplateRuntimeError(f"format_datetime: unknown time zone {tz!r}.") from None
    return dates.format_datetime(
        _datetime(value, "format_datetime"),
        format=format,
        tzinfo=zone,
        locale=_locale(locale, "format_datetime"),
    )


def format_number(value: Any, digits: int | None = None, locale: str = DEFAULT_LOCALE) -> str:
    """Grouped digits; `digits` fixes the decimals (format_number(2) -> 1,234.50)."""
    pattern = None if digits is None else "#,##0" + ("." + "0" * int(digits) if digits else "")
    return numbers.format_decimal(
        _number(value, "format_number"), format=pattern, locale=_locale(locale, "format_number")
    )


def format_currency(value: Any, currency: str = "USD", locale: str = DEFAULT_LOCALE) -> str:
    code = str(currency).upper()
    if code not in numbers.list_currencies():
        raise TemplateRuntimeError(f"format_currency: unknown currency {currency!r}.")
    return numbers.format_currency(
        _number(value, "format_currency"), code, locale=_locale(locale, "format_currency")
    )


FILTERS: dict[str, Callable[..., str]] = {
    "format_date": format_date,
    "format_datetime": format_datetime,
    "format_number": format_number,
    "format_currency": format_currency,
}
