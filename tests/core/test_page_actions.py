"""A page's POST action flashes its success, or the refusal's public text as a warning."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.test import RequestFactory

from core.errors import Conflict
from core.page_actions import page_action
from rendering.errors import ApplicationError


def _request() -> Any:
    request = RequestFactory().post("/")
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def _flashed(request: Any) -> list[tuple[str, str]]:
    return [(m.level_tag, m.message) for m in get_messages(request)]


def test_a_done_action_flashes_its_success():
    request = _request()
    page_action(request, lambda: None, done="Run started.")
    assert _flashed(request) == [("success", "Run started.")]


@pytest.mark.parametrize("error", [ApplicationError, Conflict])
def test_a_refused_action_flashes_the_refusal_without_server_paths(error):
    def act() -> None:
        raise error(f"Nothing to do in {settings.BASE_DIR}/fonts")

    request = _request()
    page_action(request, act, done="Run started.")
    assert _flashed(request) == [("warning", "Nothing to do in <server path>")]


def test_other_errors_are_not_swallowed():
    def act() -> None:
        raise ValueError("bug")

    request = _request()
    with pytest.raises(ValueError, match="bug"):
        page_action(request, act, done="Run started.")
    assert _flashed(request) == []
