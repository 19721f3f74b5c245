"""jobs.api.signed_link: a download view whose credential is the link's own token."""

from __future__ import annotations

import pytest
from rest_framework.test import APIRequestFactory

from core.errors import NotFound
from jobs.api.signed_link import SignedLinkApi
from jobs.api.views import JobPdfApi
from runs.api import RunDownloadApi


def _check(token: str) -> None:
    request = SignedLinkApi().initialize_request(
        APIRequestFactory().get("/x", {"token": token} if token else {})
    )
    SignedLinkApi().token_check(request, lambda t, key: (t, key) == ("ok", "k1"), "k1", "run")


def test_the_token_signed_for_the_key_passes():
    _check("ok")


@pytest.mark.parametrize("token", ["", "wrong"])
def test_any_other_token_is_a_404_that_says_what_to_ask_for_again(token):
    with pytest.raises(NotFound) as refused:
        _check(token)
    assert refused.value.message == (
        "This download link is invalid or has expired; ask for the run again."
    )


@pytest.mark.parametrize("view", [JobPdfApi, RunDownloadApi])
def test_the_download_views_take_no_api_key(view):
    assert view.authentication_classes == []
    assert [type(p).__name__ for p in view().get_permissions()] == ["AllowAny"]
