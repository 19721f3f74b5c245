"""django-csp's middleware with the two policies built once per process.

django-csp 4 builds both policy strings (enforced and report-only) from the settings on
every response, through `dataclasses.asdict` and a walk over every directive, though they
only change with the settings, a view's `csp_update`/`csp_replace`/`csp_override`
decorators or a nonce a template asked for. A response none of those touched here gets the
strings built for the current settings the first time (built again when a test changes
the settings); any other goes through django-csp's own code. The headers, the exemptions
(`csp_exempt`, EXCLUDE_URL_PREFIXES, DEBUG's 404 and 500 pages) and the nonce guard are
django-csp's."""

from __future__ import annotations

import http.client as http_client
from typing import Any

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject
from csp.middleware import CSPMiddleware as DjangoCSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponseBase

# What a decorator sets on a response to change its policy (django-csp's get_policy_parts).
_RESPONSE_OVERRIDES = tuple(
    f"_csp_{kind}{suffix}" for kind in ("config", "update", "replace") for suffix in ("", "_ro")
)
_SETTINGS = ("CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY", "DEBUG")

# (enforced, report-only) for the current settings, None until a response needs them.
_policies: tuple[str, str] | None = None


@receiver(setting_changed)
def _settings_changed(*, setting: str, **_: Any) -> None:
    global _policies
    if setting in _SETTINGS:
        _policies = None


def plain_policies() -> tuple[str, str]:
    """The enforced and report-only policies of a response nothing changed them for."""
    global _policies
    if _policies is None:
        _policies = (build_policy(), build_policy(report_only=True))
    return _policies


class CSPMiddleware(DjangoCSPMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in _RESPONSE_OVERRIDES
        ):
            return super().process_response(request, response)
        # From here as django-csp's process_response, for PolicyParts() with nothing set.
        exempted_debug_codes = (http_client.INTERNAL_SERVER_ERROR, http_client.NOT_FOUND)
        if response.status_code in exempted_debug_codes and settings.DEBUG:
            return response
        csp, csp_ro = plain_policies()
        for value, header, exempt, setting in (
            (csp, HEADER, "_csp_exempt", "CONTENT_SECURITY_POLICY"),
            (csp_ro, HEADER_REPORT_ONLY, "_csp_exempt_ro", "CONTENT_SECURITY_POLICY_REPORT_ONLY"),
        ):
            if not value:
                continue
            policy = getattr(settings, setting, None) or {}
            prefixes = policy.get("EXCLUDE_URL_PREFIXES", None) or ()
            if (
                header not in response
                and getattr(response, exempt, False) is False
                and not request.path_info.startswith(tuple(prefixes))
            ):
                response[header] = value
        # No nonce was asked for (else django-csp's own code above): a later ask is refused.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response
