"""The API key where other services' clients put credentials (the drop-in routes)."""

from __future__ import annotations

import base64

from accounts.authentication import basic_auth_key


def _basic(text: str) -> str:
    return "Basic " + base64.b64encode(text.encode()).decode()


def test_the_key_is_read_from_either_half_of_basic_auth():
    assert basic_auth_key(_basic("rk_abc_def:")) == "rk_abc_def"  # Gotenberg, DocRaptor
    assert basic_auth_key(_basic(":rk_abc_def")) == "rk_abc_def"
    assert basic_auth_key(_basic("admin:rk_abc_def")) == "rk_abc_def"  # jsreport's user
    assert basic_auth_key(_basic("someone:secret")) == "someone"  # then refused as a key


def test_other_authorization_headers_are_not_basic_auth():
    assert basic_auth_key(None) is None
    assert basic_auth_key("Bearer rk_abc_def") is None
    assert basic_auth_key("Basic !!not-base64!!") is None
