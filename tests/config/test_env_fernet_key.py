"""PDF_CERTIFICATE_KEY is read as a Fernet key, refused at start-up when it is not one."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

from config.env import env_fernet_key


def test_a_fernet_key_is_taken_and_unset_is_empty(monkeypatch):
    key = Fernet.generate_key().decode()
    monkeypatch.setenv("PDF_CERTIFICATE_KEY", key)
    assert env_fernet_key("PDF_CERTIFICATE_KEY") == key
    monkeypatch.delenv("PDF_CERTIFICATE_KEY")
    assert env_fernet_key("PDF_CERTIFICATE_KEY") == ""


@pytest.mark.parametrize("bad", ["hunter2", "c2hvcnQ=", "é"])
def test_anything_else_is_improperly_configured(monkeypatch, bad):
    monkeypatch.setenv("PDF_CERTIFICATE_KEY", bad)
    with pytest.raises(ImproperlyConfigured, match="must be a Fernet key"):
        env_fernet_key("PDF_CERTIFICATE_KEY")
