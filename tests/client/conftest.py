"""The client's live tests reuse the end-to-end integrator (a user with an API key)."""

from tests.e2e.conftest import integrator  # noqa: F401 - fixture
