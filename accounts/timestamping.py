"""A sign step's timestamp authority under our outbound rules: what its URL says is
checked at submit and template save (https, no loopback or private address literal);
the host name itself is resolved and checked by the worker just before it connects."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from core.outbound import host_literal_allowed
from rendering.errors import InvalidInput
from rendering.postprocess.steps import timestamp_urls


def timestamp_url_problem(url: str, *, allow_private: bool) -> str | None:
    """Why `url` may not be asked for timestamps, or None. Like a submit's callback_url,
    a name is not looked up here: the web process never waits on a tenant's DNS."""
    parts = urlsplit(url)
    if allow_private:
        return None
    if parts.scheme.lower() != "https":
        return "must be an https URL."
    host = (parts.hostname or "").rstrip(".").lower()
    return None if host_literal_allowed(host) else f"host {host!r} is not a public address."


def timestamp_urls_check(*, steps: list[dict[str, Any]]) -> None:
    """Every sign step's timestamp_url may be called (a 400 naming the step otherwise):
    what a template save and a submit both ask."""
    allow = settings.PDF_TIMESTAMP_ALLOW_PRIVATE_NETWORKS
    for index, url in timestamp_urls(steps):
        if problem := timestamp_url_problem(url, allow_private=allow):
            raise InvalidInput(f"steps[{index}]: sign.timestamp_url {problem}")
