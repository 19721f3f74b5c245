"""Fixtures of the keys-page tests: the signed-in client the other page tests use."""

from tests.jobs.pages.conftest import browser  # noqa: F401
