"""Typed reads of environment variables; a bad value raises ImproperlyConfigured at start-up."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None else value


def env_required(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise ImproperlyConfigured(f"The environment variable {name} must be set.")
    return value


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use true or false).")


N = TypeVar("N", int, float)


def _env_number(
    name: str, default: N, parse: Callable[[str], N], noun: str, minimum: N | None
) -> N:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        number = parse(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not {noun}.") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum of {minimum}.")
    return number


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    return _env_number(name, default, int, "a whole number", minimum)


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    if value.strip().lower() not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} is not one of: {', '.join(choices)}.")
    return value.strip().lower()


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    return _env_number(name, default, float, "a number", minimum)


def env_admins(name: str) -> list[tuple[str, str]]:
    """`ADMINS=ops@example.com,Ann <ann@example.com>` as Django's [(name, email), ...]."""
    admins = []
    for item in env_list(name, []):
        if "<" in item and item.endswith(">"):
            person, _, address = item[:-1].partition("<")
            admins.append((person.strip() or address.strip(), address.strip()))
        elif "@" in item:
            admins.append((item, item))
        else:
            raise ImproperlyConfigured(f"{name}: {item!r} is not an email address.")
    return admins


def env_fernet_key(name: str) -> str:
    """A Fernet key (urlsafe base64 of 32 bytes), or "" when unset."""
    value = os.environ.get(name, "").strip()
    if not value:
        return ""
    try:
        raw = base64.urlsafe_b64decode(value.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raw = b""
    if len(raw) != 32:
        raise ImproperlyConfigured(
            f"{name} must be a Fernet key: urlsafe base64 of 32 random bytes "
            '(python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key())").'
        )
    return value
