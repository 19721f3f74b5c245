"""Every error code in one lookup: rendering's, the API's and each installed app's own
`error_codes` module (found the way Django finds admin modules), so a code a job stored is
read the same whichever app defined it; jobs, below the apps, cannot import theirs."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from importlib import import_module
from typing import Any

from django.apps import apps
from django.utils.module_loading import module_has_submodule

from core import error_codes as api_codes
from rendering import error_codes as rendering_codes
from rendering.error_codes import CodeInfo


def registries() -> list[Mapping[StrEnum, CodeInfo]]:
    """Each CODES table: rendering's, the API's, then each installed app's in app order."""
    tables: list[Mapping[StrEnum, CodeInfo]] = [
        _table(rendering_codes.CODES),
        _table(api_codes.CODES),
    ]
    for config in apps.get_app_configs():
        if module_has_submodule(config.module, "error_codes"):
            tables.append(_table(import_module(f"{config.name}.error_codes").CODES))
    return tables


def _table(codes: Mapping[Any, CodeInfo]) -> Mapping[StrEnum, CodeInfo]:
    # Each app's enum is its own StrEnum subclass; the lookup reads them all alike.
    return codes


@cache
def _codes() -> dict[str, tuple[StrEnum, CodeInfo]]:
    return {str(code): (code, info) for table in registries() for code, info in table.items()}


def error_code(code: str) -> StrEnum | None:
    """The registry's member for a stored code; None for one it does not know (old rows)."""
    found = _codes().get(code)
    return None if found is None else found[0]


def code_info(code: str) -> CodeInfo | None:
    """What the registry says of a stored code; None for one it does not know (old rows)."""
    found = _codes().get(code)
    return None if found is None else found[1]


def retry_helps(code: str) -> bool:
    """Whether retrying a job that failed with `code` can succeed; an unknown code (a job
    stored before the registry) is given the benefit of the doubt."""
    info = code_info(code)
    return True if info is None else info.retry_helps


def permanent_codes() -> list[str]:
    """The codes a retry cannot fix, as stored (for a query over failed jobs)."""
    return [code for code, (_, info) in _codes().items() if not info.retry_helps]
