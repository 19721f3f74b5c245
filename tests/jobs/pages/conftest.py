"""Fixtures of the browser-page tests: a signed-in Django test client."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture
def browser(client: Client, user) -> Client:
    client.force_login(user)
    return client
