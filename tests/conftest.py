"""Fixtures shared by the whole suite: temporary report storage, users, API clients."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader
from rest_framework.test import APIClient

from accounts.services import api_key_create
from tests.factories import UserFactory
from tests.livestack import live_stack, stack_env  # noqa: F401 - session fixtures for e2e and browser tests
from tests.markers import marks_from_fixtures


@pytest.fixture(autouse=True)
def report_storage(settings, tmp_path: Path) -> Path:
    """Every test writes PDFs to its own temporary directory."""
    location = tmp_path / "reports"
    settings.STORAGES = {
        **settings.STORAGES,
        "reports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": location, "allow_overwrite": True},
        },
    }
    return location


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def api_key(user) -> str:
    return api_key_create(user=user, name="test")[1]


@pytest.fixture
def api(api_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key)
    return client


def pdf_text(content: bytes) -> tuple[int, str]:
    """Read a PDF back: its page count and all of its text."""
    reader = PdfReader(io.BytesIO(content))
    return len(reader.pages), "\n".join(page.extract_text() or "" for page in reader.pages)


def pytest_collection_modifyitems(config, items) -> None:
    """Mark what the fixtures imply (tests/markers.py); run tests that start worker
    processes last, so no live worker consumes messages that unit tests put on the shared
    queue."""
    for item in items:
        marks_from_fixtures(item)
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)
