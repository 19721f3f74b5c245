"""Which account a single sign-on signs in to: the one linked to the provider's `(issuer,
subject)` (accounts.models.SsoIdentity), or a new one linked on that first sign-in. Never
an account found by its email address: `/account/email` sets an address unverified."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from accounts.models import SsoIdentity


def sso_identity_user(*, issuer: str, subject: str, email: str) -> Any | None:
    """The account linked to this identity (its last-seen address refreshed), or None."""
    identity = (
        SsoIdentity.objects.select_related("user").filter(issuer=issuer, subject=subject).first()
    )
    if identity is None:
        return None
    identity.email = email
    identity.save(update_fields=["email", "last_sign_in_at"])
    return identity.user


def sso_identity_first_sign_in(
    *, issuer: str, subject: str, email: str, make_user: Callable[[], Any]
) -> Any:
    """A new account (`make_user`) linked to this identity. An account that already has the
    same email address is not it: whoever set that address proved nothing. Two first
    sign-ins at once: the second finds the first one's account."""
    try:
        with transaction.atomic():
            user = make_user()
            SsoIdentity.objects.create(user=user, issuer=issuer, subject=subject, email=email)
    except IntegrityError:
        found = sso_identity_user(issuer=issuer, subject=subject, email=email)
        if found is None:
            raise
        return found
    return user
