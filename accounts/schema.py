"""The X-API-Key scheme in the OpenAPI schema, so each operation names its security."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from accounts.authentication import API_KEY_HEADER


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = "ApiKeyAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": API_KEY_HEADER}


class DropInBasicScheme(OpenApiAuthenticationExtension):
    """The drop-in routes (Gotenberg, jsreport, DocRaptor): the key as basic auth (they
    take X-API-Key too, and DocRaptor's user_credentials)."""

    target_class = "accounts.authentication.DropInKeyAuthentication"
    name = "DropInBasicAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "basic"}


class DocRaptorScheme(DropInBasicScheme):
    target_class = "accounts.authentication.DocRaptorKeyAuthentication"
    name = "DocRaptorBasicAuth"
