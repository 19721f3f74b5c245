"""Jinja2 in its immutable sandbox: untrusted authors cannot reach Python objects or mutate data."""

from __future__ import annotations

from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from reports.errors import TemplateRuntimeError, TemplateSyntaxError


def _environment() -> ImmutableSandboxedEnvironment:
    # A fresh environment per render: no cache or global is shared between tenants.
    return ImmutableSandboxedEnvironment(autoescape=True, loader=None, cache_size=0)


class JinjaEngine:
    name = "jinja2"

    def check(self, source: str) -> None:
        try:
            _environment().parse(source)
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateSyntaxError(
                f"Template syntax error on line {exc.lineno}: {exc.message}", line=exc.lineno
            ) from None

    def render(self, source: str, data: dict[str, Any]) -> str:
        self.check(source)
        try:
            return _environment().from_string(source).render(data)
        except SecurityError as exc:
            raise TemplateRuntimeError(f"Template tried a forbidden operation: {exc}") from None
        except jinja2.TemplateError as exc:
            raise TemplateRuntimeError(f"Template error: {exc}") from None
        except (TypeError, ValueError, ArithmeticError, LookupError) as exc:
            raise TemplateRuntimeError(f"Template error: {exc}") from None
