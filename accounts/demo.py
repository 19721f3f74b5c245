"""The demo account `make run` seeds (manage.py seed_demo), and telling whether someone
still signs in with its well-known password."""

from __future__ import annotations

from django.contrib.auth.models import User

DEMO_USERNAME = "demo"
# Exempt from AUTH_PASSWORD_VALIDATORS (12 characters, not common) on purpose: a fresh
# clone signs in at once with what the README and `make run` print. It is set directly,
# never through a form, and the account page asks its user to replace it.
DEMO_PASSWORD = "demo"  # noqa: S105 - a local demo account, printed to the person running it


def uses_demo_password(user: User) -> bool:
    return user.username == DEMO_USERNAME and user.check_password(DEMO_PASSWORD)
