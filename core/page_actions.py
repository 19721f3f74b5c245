"""A page's POST action told back to the person: its success, or the refusal's public text."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest

from core.disclosure import public_text
from rendering.errors import ApplicationError


def page_action(request: HttpRequest, act: Callable[[], object], *, done: str) -> None:
    """Run `act` (a service call) and flash `done`; an ApplicationError it raises (the API's
    4xx) is flashed instead as a warning with its public text."""
    try:
        act()
    except ApplicationError as exc:
        messages.warning(request, public_text(exc.message))
    else:
        messages.success(request, done)
