"""Sign-in is throttled against guessing (django-axes) and passwords must be strong."""

from __future__ import annotations

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
GOOD = "a long and unguessable passphrase"


def _sign_in(client: Client, username: str, password: str) -> int:
    return client.post("/login/", {"username": username, "password": password}).status_code


def test_five_wrong_passwords_lock_the_account_from_that_address(settings):
    victim = UserFactory(username="victim")
    victim.set_password(GOOD)
    victim.save()
    other = UserFactory(username="other")
    other.set_password(GOOD)
    other.save()
    guesser = Client(REMOTE_ADDR="203.0.113.9")
    assert [_sign_in(guesser, "victim", f"guess {n}") for n in range(5)] == [200] * 4 + [429]
    assert _sign_in(guesser, "victim", GOOD) == 429  # even the right password, for now
    assert _sign_in(Client(REMOTE_ADDR="198.51.100.7"), "victim", GOOD) == 302
    assert _sign_in(guesser, "other", GOOD) == 302  # other accounts are not locked


@pytest.mark.parametrize("password", ["short1", "password1234", "123456789012", "victimvictim"])
def test_weak_passwords_are_refused(password):
    with pytest.raises(ValidationError):
        validate_password(password, user=UserFactory(username="victimvictim"))


def test_a_strong_password_is_accepted():
    validate_password(GOOD, user=UserFactory())


def test_spraying_many_usernames_from_one_address_is_throttled(settings):
    """One or two guesses on each of many accounts never trips the per-username lockout;
    the address's failures across all of them do."""
    settings.SIGN_IN_FAILURES_PER_IP = "10/hour"
    real = UserFactory(username="real")
    real.set_password(GOOD)
    real.save()
    sprayer = Client(REMOTE_ADDR="203.0.113.50")
    answers = [_sign_in(sprayer, f"user{n}", "Winter2026!") for n in range(10)]
    assert answers == [200] * 10  # each username failed once: axes saw nothing to lock
    assert _sign_in(sprayer, "user99", "Winter2026!") == 429
    assert _sign_in(sprayer, "real", GOOD) == 429  # the address waits, whatever it sends
    assert _sign_in(Client(REMOTE_ADDR="198.51.100.8"), "real", GOOD) == 302
