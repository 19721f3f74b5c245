"""Every error code in one lookup: rendering's, the API's and each installed app's own
`error_codes` module (found the way Django finds admin modules), so a code a job stored is
read the same whichever app defined it; jobs, below the apps, cannot import theirs."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from types import ModuleType

from django.apps import apps
from django.utils.module_loading import module_has_submodule

from core import error_codes as api_codes
from rendering import error_codes as rendering_codes
from rendering.error_codes import CodeEnum, CodeInfo


def registries() -> list[type[CodeEnum]]:
    """Each enum of codes: rendering's, the API's, then each installed app's in app order."""
    modules = [rendering_codes, api_codes]
    for config in apps.get_app_configs():
        if module_has_submodule(config.module, "error_codes"):
            modules.append(import_module(f"{config.name}.error_codes"))
    return [codes for module in modules for codes in _declared(module)]


def _declared(module: ModuleType) -> list[type[CodeEnum]]:
    # The CodeEnum subclasses the module defines (not those it imports, nor the base).
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, CodeEnum)
        and value is not CodeEnum
        and value.__module__ == module.__name__
    ]


@cache
def _codes() -> dict[str, CodeEnum]:
    return {str(code): code for codes in registries() for code in codes}


def error_code(code: str) -> CodeEnum | None:
    """The registry's member for a stored code; None for one it does not know (old rows)."""
    return _codes().get(code)


def code_info(code: str) -> CodeInfo | None:
    """What the registry says of a stored code; None for one it does not know (old rows)."""
    found = _codes().get(code)
    return None if found is None else found.info


def retry_helps(code: str) -> bool:
    """Whether retrying a job that failed with `code` can succeed; an unknown code (a job
    stored before the registry) is given the benefit of the doubt."""
    info = code_info(code)
    return True if info is None else info.retry_helps


def permanent_codes() -> list[str]:
    """The codes a retry cannot fix, as stored (for a query over failed jobs)."""
    return [code for code, member in _codes().items() if not member.info.retry_helps]
